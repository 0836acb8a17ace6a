package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.consumer.runtime.ConsumerApp;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The crash window between the broker's confirm and the mark, caused for real: the test holds row
 * locks on the claimed rows, so the relay process's mark waits in PostgreSQL after the broker
 * confirmed every message, and the process is killed with SIGKILL there. Its leases expire,
 * another relay publishes the same message ids again, and the ledger applies each payment once.
 */
class RelayCrashIT {
    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().exchange().purgeLedger();

    private final TestResources closing = fx.resources();

    /** The relay process's own count of broker confirms, from its {@code /metrics}. */
    private static double confirmsSeen(JavaProcess relay) throws Exception {
        Matcher port = Pattern.compile("relay metrics and health on http://[^:]+:(\\d+)/metrics")
                .matcher(relay.output());
        if (!port.find()) {
            return -1;
        }
        HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String body = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.group(1) + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher m = Pattern.compile("(?m)^outbox_publish_successes_total(?:\\{[^}]*})? (\\S+)$")
                .matcher(body);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    @Test
    void killedBetweenConfirmAndMarkThenRepublishedAndAppliedOnce() throws Exception {
        int orders = 5;
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#");
        closing.add(wire);
        TcpProxy toBroker = TcpProxy.start(fx.broker.host(), fx.broker.port());
        closing.add(toBroker);
        // without a liveness lock, like a relay of a version before V7: its rows come back by the lease
        // alone (RelayLivenessIT covers the relay that holds one)
        JavaProcess doomed = JavaProcess.start(
                "relay-doomed",
                RelayMain.class.getName(),
                fx.env(
                        "OUTBOX_RELAY_ID",
                        "relay-doomed",
                        "OUTBOX_RELAY_LIVENESS",
                        "false",
                        "OUTBOX_AMQP_URI",
                        fx.broker.uriVia(toBroker.host(), toBroker.port())));
        closing.add(doomed);
        // connected and idle: it registers as waiting only after a claim, and claims only with a broker
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        fx.db.count("SELECT count(*) FROM outbox_relay_waiters" + " WHERE relay_id = 'relay-doomed'")
                                == 1);

        // its publishes are held on the wire until the test has locked the claimed rows
        toBroker.stall();
        List<NewOutboxMessage> created = new ArrayList<>();
        List<NewOutboxMessage> captured = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            List<NewOutboxMessage> rows = fx.placeAndCapture(MessageContext.none());
            created.add(rows.get(0));
            captured.add(rows.get(1));
        }
        await().atMost(Duration.ofSeconds(5))
                .until(() -> fx.count("status = 'IN_PROGRESS'" + " AND locked_by = 'relay-doomed'") == orders);
        List<TestBroker.Received> all = new ArrayList<>();
        try (Connection locker = DriverManager.getConnection(fx.db.url(), fx.db.user(), fx.db.password())) {
            // row locks in an open transaction: the relay's mark will wait for them, as behind a slow
            // or stuck database, after the broker confirmed
            locker.setAutoCommit(false);
            try (Statement s = locker.createStatement()) {
                s.execute("SELECT id FROM message_outbox WHERE locked_by = 'relay-doomed' FOR UPDATE");
            }
            toBroker.resume();
            all.addAll(wire.await(orders, Duration.ofSeconds(10)));
            assertEquals(
                    created.stream().map(r -> r.id().toString()).sorted().toList(),
                    all.stream().map(TestBroker.Received::messageId).sorted().toList(),
                    "every v1 is on the broker");
            // v2 must wait for v1 to be recorded, which never happens
            await().atMost(Duration.ofSeconds(10)).until(() -> confirmsSeen(doomed) == orders);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fx.db.count("SELECT count(*) FROM pg_stat_activity"
                                    + " WHERE datname = current_database() AND application_name = 'outbox-relay'"
                                    + " AND wait_event_type = 'Lock' AND query LIKE '%SET status = ''PUBLISHED''%'")
                            == 1);
            doomed.kill();
            locker.rollback();
        }
        assertEquals(
                orders,
                fx.db.count("SELECT count(*) FROM message_outbox WHERE status = 'IN_PROGRESS'"
                        + " AND locked_by = 'relay-doomed'"),
                "and none of them is marked");
        assertEquals(orders, fx.count("status = 'PENDING' AND aggregate_version = 2"), "v2 was held back");

        // the replacement relay recovers the stale leases and publishes the same ids again, then v2
        closing.add(RelayApp.start(new Settings(fx.env(
                "OUTBOX_RELAY_ID",
                "relay-replacement",
                "OUTBOX_RELAY_LEASE",
                "3s",
                "OUTBOX_RELAY_CONFIRM_TIMEOUT",
                "1s",
                "OUTBOX_RELAY_STALE_CHECK_INTERVAL",
                "200ms"))));
        await().atMost(Duration.ofSeconds(30)).until(() -> fx.countByStatus("PUBLISHED") == 2L * orders);
        all.addAll(wire.await(2 * orders, Duration.ofSeconds(10)));
        Map<String, Long> copies =
                all.stream().collect(Collectors.groupingBy(TestBroker.Received::messageId, Collectors.counting()));
        for (NewOutboxMessage row : created) {
            assertEquals(2L, copies.get(row.id().toString()), "published twice with the same messageId: " + row.id());
        }
        for (NewOutboxMessage row : captured) {
            assertEquals(1L, copies.get(row.id().toString()));
        }
        assertEquals(orders, fx.count("last_error_code = 'STALE_LOCK' AND attempt_count = 2"));

        // the ledger consumer receives both copies of every v1 and applies everything once
        ConsumerApp ledger = ConsumerApp.start(new Settings(fx.env()), LedgerConsumer.REGISTRATION);
        closing.add(ledger);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> ledger.runner().stats().applied()
                                + ledger.runner().stats().duplicates()
                        == 3L * orders);
        assertEquals(2L * orders, ledger.runner().stats().applied());
        assertEquals(orders, ledger.runner().stats().duplicates());
        assertEquals(orders, fx.db.count("SELECT count(*) FROM ledger_entries WHERE entry_type = 'CAPTURE'"));
        assertEquals(
                2L * orders, fx.db.count("SELECT count(*) FROM processed_messages WHERE consumer_name = 'ledger'"));
    }
}
