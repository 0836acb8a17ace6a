package dev.outbox.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.kernel.json.Json;
import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A deploy order a rollout may take: the API and the relay up first and taking orders, the ledger
 * consumer a while later. Each part is started as the README starts it, from the jars {@code mvn
 * package} built (their own class paths, none of the test's), with nothing set up on the broker or
 * in the registry beforehand: each process registers what it owns at its start, and the relay
 * declares what the registry names.
 *
 * <p>Before the ledger is there, the API's events reach an exchange nothing is bound to and are
 * parked {@code UNROUTABLE}, each order's capture waiting behind its creation; once the ledger has
 * registered its queue, the relay declares it, makes those rows due again by itself, and every
 * capture is booked once. No operator, no restart.
 */
class DeployOrderIT {
    private static final Duration START = Duration.ofSeconds(120);
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final int ORDERS = 10;
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    private static final Pattern API_PORT = Pattern.compile("API listening on http://127\\.0\\.0\\.1:(\\d+)/");
    /**
     * A line of the processes' own {@code logback.xml} (outbox-process), which each
     * shipped class path must find: without it Logback's default prints {@code HH:mm:ss.SSS} and
     * everything at DEBUG.
     */
    private static final Pattern SHIPPED_LOG_LINE = Pattern.compile(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO  \\[[^\\]]+\\] \\S+ .*");

    private final TestDatabase db = TestDatabase.get();
    private final TestBroker broker = TestBroker.get();
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @RegisterExtension
    final TestResources closing = new TestResources();

    /** Nothing of an earlier test: no registration, no exchange, no consumer queue. */
    @BeforeEach
    void nothingDeclaredNothingRegistered() {
        db.reset();
        for (String q : List.of(LedgerConsumer.QUEUE, Topology.deadLetterQueueOf(LedgerConsumer.QUEUE))) {
            broker.deleteQueue(q);
        }
        broker.deleteExchange(Topology.ORDERS_EXCHANGE);
    }

    @Test
    void aConsumerDeployedAfterTheApiAndTheRelayMissesNothing() throws Exception {
        Map<String, String> env = new HashMap<>(db.env());
        env.putAll(broker.env());
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_RELAY_HTTP_PORT", "0");
        env.put("OUTBOX_LEDGER_HTTP_PORT", "0");
        env.put("OUTBOX_RELAY_ID", "deploy-order-relay");

        JavaProcess api = closing.add(JavaProcess.startJar("api", jar("api/target", "outbox-api"), env));
        JavaProcess relay =
                closing.add(JavaProcess.startJar("relay", jar("relay-worker/target", "outbox-relay-worker"), env));
        int apiPort = apiPort(api);
        relay.awaitOutput(Pattern.compile("relay deploy-order-relay running"), START);

        List<UUID> orders = new ArrayList<>();
        for (int i = 0; i < ORDERS; i++) {
            orders.add(placeAndCapture(apiPort, i));
        }
        // the window is real: every creation parked for want of a queue, every capture behind it
        await("order.created parked UNROUTABLE")
                .atMost(WAIT)
                .until(() -> count("message_type = 'order.created' AND status = 'PARKED'"
                                + " AND last_error_code = 'UNROUTABLE'")
                        == ORDERS);
        assertEquals(ORDERS, count("message_type = 'payment.captured' AND status = 'PENDING'"));
        assertEquals(0L, db.count("SELECT count(*) FROM ledger_entries"));

        JavaProcess ledger = closing.add(JavaProcess.startShipped(
                "ledger",
                List.of(
                        ROOT.resolve("ops/launcher/target/outbox-launcher.jar"),
                        ROOT.resolve("ops/consumers/ledger/target/outbox-sample-ledger.jar")),
                "dev.outbox.consumer.runtime.ConsumerMain",
                env,
                "ledger"));
        ledger.awaitOutput(Pattern.compile("ledger consumer running"), START);

        await("every capture booked")
                .atMost(WAIT)
                .until(() -> db.count("SELECT count(*) FROM ledger_entries") >= ORDERS);
        await("every row published").atMost(WAIT).until(() -> count("status = 'PUBLISHED'") == 2L * ORDERS);
        assertEquals(0, count("status <> 'PUBLISHED'"), "nothing left parked or pending");
        for (UUID order : orders) {
            assertEquals(
                    1L,
                    db.count(
                            "SELECT count(*) FROM ledger_entries WHERE order_id = ? AND entry_type = 'CAPTURE'", order),
                    "order " + order + " booked once");
        }
        assertTrue(
                relay.output().contains("are due again: the relay declared what routes them"),
                "the relay made them due itself:\n" + relay.output());

        assertLoggedAsShipped(api, "API listening on");
        assertLoggedAsShipped(relay, "relay deploy-order-relay running");
        assertLoggedAsShipped(ledger, "ledger consumer running");

        for (JavaProcess p : List.of(ledger, relay, api)) {
            assertEquals(0, p.terminate(Duration.ofSeconds(130)), p.output());
        }
    }

    private static void assertLoggedAsShipped(JavaProcess p, String text) {
        List<String> lines = p.output().lines().filter(l -> l.contains(text)).toList();
        assertEquals(1, lines.size(), "one line says \"" + text + "\":\n" + p.output());
        assertTrue(
                SHIPPED_LOG_LINE.matcher(lines.get(0)).matches(),
                "logged with the processes' logback.xml: " + lines.get(0));
        assertTrue(p.output().lines().noneMatch(l -> l.contains(" DEBUG ")), "nothing at DEBUG:\n" + p.output());
    }

    private long count(String where) {
        return db.count("SELECT count(*) FROM message_outbox WHERE " + where);
    }

    private static int apiPort(JavaProcess api) throws InterruptedException {
        api.awaitOutput(API_PORT, START);
        Matcher m = API_PORT.matcher(api.output());
        assertTrue(m.find());
        return Integer.parseInt(m.group(1));
    }

    private UUID placeAndCapture(int port, int i) throws Exception {
        JsonNode order = Json.mapper()
                .readTree(post(
                        port,
                        "/orders",
                        "{\"customerId\":\"deploy-order-" + i + "\",\"currency\":\"EUR\",\"lines\":"
                                + "[{\"sku\":\"SKU-1\",\"quantity\":2,\"unitPrice\":\"19.99\"}]}",
                        201));
        UUID id = UUID.fromString(order.get("id").asText());
        post(
                port,
                "/orders/" + id + "/capture",
                "{\"amount\":\"" + order.get("total").asText() + "\"}",
                200);
        return id;
    }

    private String post(int port, String path, String body, int expected) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .header("Idempotency-Key", UUID.randomUUID().toString())
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(expected, r.statusCode(), path + ": " + r.body());
        return r.body();
    }

    /** The one jar {@code mvn package} built in {@code dir} under {@code name}, as the README starts it. */
    private static Path jar(String dir, String name) throws IOException {
        try (Stream<Path> files = Files.list(ROOT.resolve(dir))) {
            List<Path> jars = files.filter(
                            p -> p.getFileName().toString().matches(Pattern.quote(name) + "-[^-]+(-SNAPSHOT)?\\.jar"))
                    .toList();
            assertEquals(1, jars.size(), "one " + name + " jar in " + dir + ": " + jars);
            return jars.get(0);
        }
    }
}
