package dev.outbox.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.config.Settings;
import dev.outbox.ctl.Outboxctl;
import dev.outbox.kernel.json.Json;
import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The operator's path, end to end on the whole system: a message parked as UNROUTABLE by the
 * real relay is found, diagnosed and retried with outboxctl alone after the topology is fixed,
 * and arrives on the broker under its own id, with the repair in the audit trail.
 */
class OperatorPathIT {
    private static final String TOKEN = "operator-path-" + UUID.randomUUID();
    private static final String ROUTING_KEY = "ops.test.unbound";
    private static final TestDatabase DB = TestDatabase.get();
    private static final TestBroker BROKER = TestBroker.get();

    @RegisterExtension
    final TestResources closing = new TestResources();

    private String url;

    record Result(int code, String out, String err) {}

    @BeforeEach
    void start() {
        DB.reset();
        BROKER.declareTopicExchange(Topology.ORDERS_EXCHANGE);
        BROKER.purgeIfExists(LedgerConsumer.QUEUE);
        // the row it repairs (ops.test) has no contract: it is to meet the broker, unroutable
        Map<String, String> env =
                TestSystem.env(Map.of("OUTBOX_OPS_TOKEN", TOKEN, "OUTBOX_RELAY_UNREGISTERED_TYPES", "json-only"));
        Launcher launcher = Launcher.start(new Settings(env));
        closing.add(launcher);
        url = "http://127.0.0.1:" + launcher.api().port();
    }

    /** outboxctl in this JVM, as the operator "night-shift"; its output never shows the token. */
    private Result outboxctl(String... args) {
        List<String> all = new ArrayList<>(List.of("--url", url, "--token", TOKEN, "--operator", "night-shift"));
        all.addAll(List.of(args));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Outboxctl(Map.of()))
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(all.toArray(String[]::new));
        Result r = new Result(code, out.toString(), err.toString());
        assertFalse(r.out().contains(TOKEN) || r.err().contains(TOKEN), "the token was printed");
        return r;
    }

    private Result ok(String... args) {
        Result r = outboxctl(args);
        assertEquals(0, r.code(), String.join(" ", args) + " failed: " + r.err());
        return r;
    }

    private static boolean hasLine(String text, String regex) {
        return Pattern.compile("(?m)^" + regex + "$").matcher(text).find();
    }

    @Test
    void anOperatorFindsAParkedMessageFixesTheTopologyRetriesItAndWatchesItPublish() throws Exception {
        // a message for a routing key nothing is bound to: the relay's mandatory publish comes back 312
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload) VALUES (?, 'ops', 'operator-path', 'ops.test', ?, ?, '{}'::jsonb)",
                id,
                Topology.ORDERS_EXCHANGE,
                ROUTING_KEY);

        // 1. find it: the parked list shows it once the relay has tried
        await().atMost(Duration.ofSeconds(20))
                .until(() -> ok("list", "--status", "PARKED").out().contains(id.toString()));
        Result parked = ok("list", "--status", "PARKED");
        assertTrue(
                hasLine(
                        parked.out(),
                        id + "\\s+PARKED\\s+ops\\.test\\s+ops/operator-path\\s+-\\s+1\\s+UNROUTABLE\\s+\\S+"),
                parked.out());
        assertTrue(hasLine(ok("stats").out(), "UNROUTABLE\\s+1"));

        // 2. diagnose it: UNROUTABLE, the broker's 312, and where it was going
        Result show = ok("show", id.toString());
        assertTrue(hasLine(show.out(), "status:\\s+PARKED"), show.out());
        assertTrue(hasLine(show.out(), "last error:\\s+UNROUTABLE: .*312.*"), show.out());
        assertTrue(hasLine(show.out(), "routing key:\\s+" + Pattern.quote(ROUTING_KEY)), show.out());
        assertTrue(show.out().contains("rabbitmqctl list_bindings"), show.out());

        // 3. fix the topology: a queue bound to the routing key
        try (RecordingQueue queue = BROKER.bindQueue(Topology.ORDERS_EXCHANGE, ROUTING_KEY)) {
            // 4. retry it
            Result retry = ok("retry", id.toString(), "--reason", "bound a queue to " + ROUTING_KEY);
            assertEquals("RETRY: 1 message(s)\n  " + id + "\n", retry.out());

            // 5. watch it go out
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        JsonNode row = Json.mapper()
                                .readTree(ok("show", id.toString(), "--json").out());
                        return "PUBLISHED".equals(row.path("status").asText());
                    });
            List<TestBroker.Received> received = queue.await(1, Duration.ofSeconds(10));
            assertTrue(
                    received.stream().anyMatch(m -> id.toString().equals(m.messageId())),
                    "the broker delivered the message under its own id");
            assertEquals("{}", received.get(0).body());
        }

        // 6. the repair is on record, under the operator's name
        Result audit = ok("audit", "--message-id", id.toString());
        assertTrue(
                hasLine(
                        audit.out(),
                        "\\S+\\s+night-shift\\s+operator\\s+RETRY\\s+1\\s+" + id + "\\s+bound a queue to "
                                + Pattern.quote(ROUTING_KEY)),
                audit.out());
        JsonNode entries = Json.mapper()
                .readTree(ok("audit", "--message-id", id.toString(), "--json").out())
                .get("items");
        assertEquals(1, entries.size());
        assertEquals("RETRY", entries.get(0).get("action").asText());
        assertEquals("night-shift", entries.get(0).get("actor").asText());
        assertTrue(hasLine(ok("stats").out(), "PARKED\\s+0"));
    }
}
