package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.GetResponse;
import dev.outbox.config.Settings;
import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.testkit.junit.TestResources;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay declares what the registry holds: the exchange of every registered contract, and every
 * registered queue bound to it, at start and when a registration arrives while it runs; a queue
 * the broker refuses (406) is reported and stops neither the rest nor publishing. The exchange and
 * queues here are on no classpath: only the registry names them.
 */
class RelayTopologyIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String TYPE = "registry.probe";
    private static final String EXCHANGE = "registry.events";
    private static final String QUEUE = "registry.probe-q";
    private static final String REFUSED = "registry.a-refused-q";

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset();

    private final TestResources closing = fx.resources();

    @BeforeEach
    @AfterEach
    void noRegistryTopologyOnTheBroker() {
        for (String q : List.of(QUEUE, QUEUE + ".dlq", REFUSED, REFUSED + ".dlq")) {
            fx.broker.deleteQueue(q);
        }
        fx.broker.deleteExchange(EXCHANGE);
    }

    private static MessageContract probeContract() {
        ObjectNode doc = RelayContractsIT.contract(TYPE, 1, false);
        ((ObjectNode) doc.get("x-outbox")).put("exchange", EXCHANGE);
        return RelayContractsIT.parsed(doc, TYPE, 1);
    }

    private static ObjectNode queue(String name) {
        return (ObjectNode) RelayContractsIT.parse("{\"queue\": \"" + name + "\", \"consumer\": \"probe\","
                + " \"bindings\": [{\"exchange\": \"" + EXCHANGE + "\", \"routingKeys\": \"contracts\"}]}");
    }

    private void register(List<ObjectNode> queues) {
        new MessageRegistry(fx.db.dataSource()).register(List.of(probeContract()), queues, "probe-service");
    }

    private UUID insertProbe() {
        UUID id = UUID.randomUUID();
        fx.db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                        + " payload) VALUES (?, 'order', 'p-1', ?, ?, ?, '{\"probeId\": \"p-1\", \"count\": 1}')",
                id,
                TYPE,
                EXCHANGE,
                TYPE);
        return id;
    }

    /** The id of the message waiting in {@code queue}, taken off it. */
    private String takeOne(String queue) {
        AtomicReference<String> id = new AtomicReference<>();
        // a get from a queue not declared yet would close the channel (404)
        await().atMost(WAIT).until(() -> fx.broker.messageCount(queue) >= 0);
        await().atMost(WAIT).until(() -> {
            fx.broker.withChannel(ch -> {
                GetResponse r = ch.basicGet(queue, true);
                if (r != null) {
                    id.set(r.getProps().getMessageId());
                }
            });
            return id.get() != null;
        });
        return id.get();
    }

    /** A relay connected to the broker, its first declaration done (the session is available after it). */
    private RelayApp startRelay() throws InterruptedException {
        RelayApp relay = closing.add(RelayApp.start(new Settings(fx.env("OUTBOX_RELAY_REGISTRY_POLL", "1h"))));
        assertTrue(relay.session().awaitAvailable(WAIT), "the relay's broker session is up");
        return relay;
    }

    @Test
    void whatWasRegisteredBeforeTheRelayStartedIsDeclaredAndRoutes() throws Exception {
        register(List.of(queue(QUEUE)));
        startRelay();

        UUID id = insertProbe();

        assertEquals(id.toString(), takeOne(QUEUE));
        await().atMost(WAIT).until(() -> "PUBLISHED".equals(fx.status(id)));
    }

    @Test
    void aQueueRegisteredWhileTheRelayRunsIsDeclaredWithoutARestart() throws Exception {
        startRelay();
        assertEquals(-1, fx.broker.messageCount(QUEUE), "not declared by the relay's first declaration");
        register(List.of(queue(QUEUE)));
        // declared by the relay on hearing the registration: nothing else in this test declares it
        await().atMost(WAIT).until(() -> fx.broker.messageCount(QUEUE) >= 0);

        UUID id = insertProbe();

        assertEquals(id.toString(), takeOne(QUEUE));
    }

    /**
     * A row written before its producer registered goes to an exchange nobody declared (parked
     * EXCHANGE_NOT_FOUND); once the contract is registered the relay declares the exchange and
     * the row goes out by itself, to no queue yet (parked UNROUTABLE); once a consumer registers
     * its queue it goes out by itself again and arrives. No operator, no restart.
     */
    @Test
    void aRowParkedForWantOfItsExchangeOrQueueGoesOutOnceTheyAreRegistered() throws Exception {
        RelayApp relay = startRelay();
        UUID id = insertProbe();
        await().atMost(WAIT).until(() -> "EXCHANGE_NOT_FOUND".equals(errorCode(id)));
        assertEquals("PARKED", fx.status(id));

        register(List.of());

        await().atMost(WAIT).until(() -> "UNROUTABLE".equals(errorCode(id)));
        await().atMost(WAIT).until(() -> "PARKED".equals(fx.status(id)));

        register(List.of(queue(QUEUE)));

        assertEquals(id.toString(), takeOne(QUEUE));
        await().atMost(WAIT).until(() -> "PUBLISHED".equals(fx.status(id)));
        assertEquals(2.0, metric(relay, "outbox_relay_topology_retried_total"), "made due once for each registration");
    }

    private String errorCode(UUID id) {
        return (String) fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", id);
    }

    @Test
    void aQueueTheBrokerRefusesIsReportedAndNeitherTheRestNorPublishingStops() throws Exception {
        // the queue exists with other arguments: declaring it as registered is refused with 406
        fx.broker.withChannel(ch -> ch.queueDeclare(REFUSED, true, false, false, Map.of("x-max-length", 7L)));
        register(List.of(queue(REFUSED), queue(QUEUE)));
        RelayApp relay = startRelay();

        UUID id = insertProbe();

        assertEquals(id.toString(), takeOne(QUEUE), "the queue declared after the refused one is there");
        // the refused queue exists with other arguments; its registered bindings are declared all the same
        assertEquals(id.toString(), takeOne(REFUSED), "the refused queue is bound as registered");
        await().atMost(WAIT).until(() -> "PUBLISHED".equals(fx.status(id)));
        assertTrue(metric(relay, "outbox_relay_topology_refused_total") >= 1, "the refusal is counted");
    }

    private static double metric(RelayApp relay, String name) throws Exception {
        HttpResponse<String> metrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + relay.httpPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? (\\S+)$")
                .matcher(metrics.body());
        assertTrue(m.find(), metrics.body());
        return Double.parseDouble(m.group(1));
    }
}
