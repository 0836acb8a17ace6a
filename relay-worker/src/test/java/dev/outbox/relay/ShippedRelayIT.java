package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.MessageContext;
import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay as it ships: {@code java -jar target/outbox-relay-worker-*.jar}, the class path its
 * manifest names ({@code lib/}) and nothing of the test's, so no service's contract is on it. What
 * it knows of the order service's contracts it learns from the registry, as a deployed relay must:
 * a row any SQL client writes for {@code order.created} v1 that breaks the contract is parked
 * {@code PAYLOAD_INVALID}, not published.
 */
class ShippedRelayIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String NOT_AN_ORDER = "{\"not\": \"an order\"}";

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().exchange();

    private final TestResources closing = fx.resources();

    /** The jar {@code mvn package} built in this module, as the README starts it. */
    static Path shippedJar() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            List<Path> jars = files.filter(
                            p -> p.getFileName().toString().matches("outbox-relay-worker-[^-]+(-SNAPSHOT)?\\.jar"))
                    .toList();
            assertEquals(1, jars.size(), "one relay jar in target/: " + jars);
            return jars.get(0);
        }
    }

    private JavaProcess startShipped(String id) throws Exception {
        Map<String, String> env = fx.env("OUTBOX_RELAY_ID", id, "OUTBOX_RELAY_DECLARE_TOPOLOGY", "false");
        // as deployed: the default for types no contract describes, not the fixtures' json-only
        env.remove("OUTBOX_RELAY_UNREGISTERED_TYPES");
        JavaProcess relay = closing.add(JavaProcess.startJar(id, shippedJar(), env));
        relay.awaitOutput(Pattern.compile("relay " + id + " running"), WAIT);
        return relay;
    }

    private void registerTheOrderServicesContracts() {
        // what the order service's API registers at start, from its own classpath (here the test's)
        new MessageRegistry(fx.db.dataSource())
                .registerContracts(MessageContracts.onClasspath().all(), "outbox-api");
    }

    private void awaitParkedAsInvalid(UUID id) {
        await().atMost(WAIT).until(() -> !"PENDING".equals(fx.status(id)) && !"IN_PROGRESS".equals(fx.status(id)));
        assertEquals(
                List.of("PARKED", "PAYLOAD_INVALID"),
                List.of(fx.status(id), fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", id)));
        String reason = (String) fx.db.scalar("SELECT last_error_message FROM message_outbox WHERE id = ?", id);
        assertTrue(reason.contains("breaks the order.created v1 contract"), reason);
    }

    @Test
    void theShippedRelayParksARowThatBreaksAContractRegisteredBeforeItStarted() throws Exception {
        registerTheOrderServicesContracts();
        UUID broken = fx.insertRaw("order.created", "order.created", "orders.events", NOT_AN_ORDER);
        List<NewOutboxMessage> orders = fx.placeAndCapture(MessageContext.none());
        RecordingQueue wire = closing.add(fx.broker.bindQueue("orders.events", "#"));

        JavaProcess relay = startShipped("relay-shipped");

        assertTrue(
                Pattern.compile(
                                "relay knows \\d+ message contract\\(s\\) \\[[^]]*order\\.created v1[^]]*\\], \\d+ of them from"
                                        + " the registry")
                        .matcher(relay.output())
                        .find(),
                relay.output());
        awaitParkedAsInvalid(broken);
        Set<String> delivered = wire.await(orders.size(), WAIT).stream()
                .map(TestBroker.Received::messageId)
                .collect(Collectors.toSet());
        assertEquals(orders.stream().map(m -> m.id().toString()).collect(Collectors.toSet()), delivered);
        assertEquals(List.of(), wire.drain(), "the broken row never reached the broker");
        assertEquals(0, relay.terminate(Duration.ofSeconds(30)), relay.output());
    }

    @Test
    void theShippedRelayParksWhatNoContractDescribesAndPublishesItOnceTheProducerRegisters() throws Exception {
        JavaProcess relay = startShipped("relay-learns");
        assertTrue(
                relay.output()
                        .contains("relay knows 0 message contract(s) [], 0 of them from the registry, 0 registered"
                                + " row(s) unusable; unordered types []; rows of other types parked CONTRACT_UNKNOWN"),
                relay.output());
        RecordingQueue wire = closing.add(fx.broker.bindQueue("orders.events", "#"));
        // an order placed and captured before the order service registered (it starts after the relay)
        List<NewOutboxMessage> early = fx.placeAndCapture(MessageContext.none());
        UUID created = early.get(0).id();
        await().atMost(WAIT).until(() -> "PARKED".equals(fx.status(created)));
        assertEquals(
                "CONTRACT_UNKNOWN", fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", created));
        assertEquals("PENDING", fx.status(early.get(1).id()), "the capture waits behind its order's first version");
        assertEquals(List.of(), wire.drain());

        registerTheOrderServicesContracts();
        relay.awaitOutput(Pattern.compile("added \\[[^]]*order\\.created v1"), WAIT);

        assertEquals(
                early.stream().map(m -> m.id().toString()).toList(),
                wire.await(2, WAIT).stream().map(TestBroker.Received::messageId).toList(),
                "both published by themselves, in version order");
        UUID broken = fx.insertRaw("order.created", "order.created", "orders.events", NOT_AN_ORDER);
        awaitParkedAsInvalid(broken);
        assertEquals(0, relay.terminate(Duration.ofSeconds(30)), relay.output());
    }
}
