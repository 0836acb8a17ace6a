package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.messaging.Topology;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Strict per-aggregate order on the wire, with a parked version and with two relay processes. */
class RelayOrderingIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().topology().purgeLedger();

    private final TestResources closing = fx.resources();

    private void insertVersion(String aggregate, long version, String routingKey) {
        fx.db.update(
                "INSERT INTO message_outbox (aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload) VALUES ('test', ?, ?, 'test.step', ?, ?, ?::jsonb)",
                aggregate,
                version,
                Topology.ORDERS_EXCHANGE,
                routingKey,
                "{\"v\":" + version + "}");
    }

    /** Arrival order of versions per aggregate, as one consumer on one queue saw them. */
    private static Map<String, List<Long>> byAggregate(List<TestBroker.Received> received) {
        Map<String, List<Long>> out = new LinkedHashMap<>();
        for (TestBroker.Received r : received) {
            out.computeIfAbsent((String) r.header("aggregate_id"), k -> new ArrayList<>())
                    .add(((Number) r.header("aggregate_version")).longValue());
        }
        return out;
    }

    @Test
    void aParkedVersionHoldsBackItsSuccessorsUntilAnOperatorRetriesIt() throws Exception {
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "test.bound");
        closing.add(wire);
        insertVersion("stuck", 1, "test.unbound"); // no queue for it yet: UNROUTABLE, parked
        insertVersion("stuck", 2, "test.bound");
        insertVersion("stuck", 3, "test.bound");
        for (int a = 0; a < 5; a++) {
            for (long v = 1; v <= 3; v++) {
                insertVersion("flowing-" + a, v, "test.bound");
            }
        }
        RelayApp relay = RelayApp.start(new Settings(fx.env()));
        closing.add(relay);

        await().atMost(WAIT).until(() -> fx.count("aggregate_id LIKE 'flowing-%' AND status = 'PUBLISHED'") == 15);
        assertEquals(
                "PARKED",
                fx.db.scalar("SELECT status FROM message_outbox WHERE aggregate_id = 'stuck'"
                        + " AND aggregate_version = 1"));
        assertEquals(
                2,
                fx.count("aggregate_id = 'stuck' AND status = 'PENDING' AND attempt_count = 0"),
                "v2 and v3 were never even tried");
        assertEquals(1, fx.store().blockedAggregates());

        // the operator fixes the topology and retries v1: v1, v2, v3 follow in order
        RecordingQueue fixed = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "test.unbound", "test.bound");
        closing.add(fixed);
        UUID v1 = (UUID) fx.db.scalar(
                "SELECT id FROM message_outbox WHERE aggregate_id = 'stuck'" + " AND aggregate_version = 1");
        fx.store().retryNow(List.of(v1));
        await().atMost(WAIT).until(() -> fx.count("aggregate_id = 'stuck' AND status = 'PUBLISHED'") == 3);
        List<Long> stuck = byAggregate(fixed.await(3, WAIT)).get("stuck");
        assertEquals(List.of(1L, 2L, 3L), stuck);
        assertEquals(0, fx.store().blockedAggregates());
    }

    @Test
    void twoRelayProcessesDrainingManyAggregatesKeepEveryAggregatesOrder() throws Exception {
        int aggregates = 100;
        int versions = 10;
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "test.ordered");
        closing.add(wire);
        JavaProcess one = JavaProcess.start(
                "relay-one",
                RelayMain.class.getName(),
                fx.env("OUTBOX_RELAY_ID", "relay-one", "OUTBOX_RELAY_BATCH_SIZE", "32"));
        closing.add(one);
        JavaProcess two = JavaProcess.start(
                "relay-two",
                RelayMain.class.getName(),
                fx.env("OUTBOX_RELAY_ID", "relay-two", "OUTBOX_RELAY_BATCH_SIZE", "32"));
        closing.add(two);
        // both relays are connected and polling before there is anything to claim, so the backlog
        // is contended from its first row (a relay that started first could otherwise drain it alone)
        Pattern connected = Pattern.compile("connected to broker");
        one.awaitOutput(connected, WAIT);
        two.awaitOutput(connected, WAIT);
        // the whole backlog in one statement: version by version across aggregates, as concurrent
        // business transactions would have written it
        fx.db.update(
                "INSERT INTO message_outbox (aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload)"
                        + " SELECT 'test', 'agg-' || a, v, 'test.step', ?, 'test.ordered', jsonb_build_object('v', v)"
                        + " FROM generate_series(1, ?) AS v, generate_series(0, ? - 1) AS a ORDER BY v, a",
                Topology.ORDERS_EXCHANGE,
                versions,
                aggregates);

        List<TestBroker.Received> received = wire.await(aggregates * versions, WAIT);
        await().atMost(WAIT).until(() -> fx.count("status = 'PUBLISHED'") == (long) aggregates * versions);
        Map<String, List<Long>> order = byAggregate(received);
        assertEquals(aggregates, order.size());
        List<Long> expected = LongStream.rangeClosed(1, versions).boxed().toList();
        order.forEach((aggregate, seen) -> assertEquals(expected, seen, aggregate + " arrived out of order"));

        assertEquals(0, one.terminate(Duration.ofSeconds(30)));
        assertEquals(0, two.terminate(Duration.ofSeconds(30)));
        long byOne = publishedBy(one);
        long byTwo = publishedBy(two);
        assertEquals((long) aggregates * versions, byOne + byTwo);
        assertTrue(byOne > 0 && byTwo > 0, "both relays took part: " + byOne + " and " + byTwo);
    }

    private static long publishedBy(JavaProcess relay) {
        Matcher m = Pattern.compile("stopped: claimed=\\d+ published=(\\d+)").matcher(relay.output());
        assertTrue(m.find(), relay.output());
        return Long.parseLong(m.group(1));
    }
}
