package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.messaging.Topology;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.junit.TestResources;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * LISTEN/NOTIFY wake-up: while a relay waits for work, one notification per committed
 * transaction that wrote outbox rows, none for a rolled-back one; none at all while no relay waits
 * (or only a registration a minute old, left by a relay that died); and a relay that polls only
 * once a minute still publishes within moments of a commit, also after its listening connection
 * was killed.
 */
class RelayNotifyIT {
    /** Far longer than any wait below: a row published within WAIT was not found by polling. */
    private static final String ONCE_A_MINUTE = "60s";

    private static final Duration WAIT = Duration.ofSeconds(10);

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().topology();

    private final TestResources closing = fx.resources();

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(fx.db.url(), fx.db.user(), fx.db.password());
    }

    private static void insertRows(Connection c, int rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO message_outbox (aggregate_type, aggregate_id,"
                + " message_type, exchange_name, routing_key, payload) VALUES ('test', ?, 'test.notify', ?,"
                + " 'test.notify', '{}'::jsonb)")) {
            for (int i = 0; i < rows; i++) {
                ps.setString(1, UUID.randomUUID().toString());
                ps.setString(2, Topology.ORDERS_EXCHANGE);
                ps.executeUpdate(); // one statement per row: still one notification per transaction
            }
        }
    }

    @Test
    void oneNotificationPerCommittedTransactionNoneForARollback() throws Exception {
        fx.db.update("INSERT INTO outbox_relay_waiters (relay_id) VALUES ('waiting-relay')");
        try (Connection listener = connect();
                Connection writer = connect()) {
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN " + PendingListener.CHANNEL);
            }
            writer.setAutoCommit(false);
            insertRows(writer, 3);
            writer.rollback();
            insertRows(writer, 5);
            writer.commit();
            insertRows(writer, 2);
            writer.commit();

            PGConnection pg = listener.unwrap(PGConnection.class);
            List<PGNotification> received = new ArrayList<>();
            long deadline = System.nanoTime() + WAIT.toNanos();
            // notifications arrive in commit order; two commits were made, so two are awaited
            while (received.size() < 2 && System.nanoTime() < deadline) {
                PGNotification[] batch = pg.getNotifications(200);
                if (batch != null) {
                    received.addAll(List.of(batch));
                }
            }
            assertEquals(2, received.size(), "one per committed transaction: " + received);
            // anything the rolled-back transaction or a per-row trigger had sent would be queued by now,
            // behind or among those two: one more non-blocking read must find nothing
            PGNotification[] more = pg.getNotifications(-1);
            assertTrue(more == null || more.length == 0, "no further notifications");
            received.forEach(n -> assertEquals(PendingListener.CHANNEL, n.getName()));
            assertEquals(7, fx.countByStatus("PENDING"));
        }
    }

    @Test
    void noNotificationWhileNoRelayWaitsOrOnlyAStaleRegistration() throws Exception {
        try (Connection listener = connect();
                Connection writer = connect()) {
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN " + PendingListener.CHANNEL);
            }
            insertRows(writer, 1); // autocommit: no relay waits
            fx.db.update("INSERT INTO outbox_relay_waiters (relay_id, since) VALUES ('died-waiting',"
                    + " now() - interval '61 seconds')");
            insertRows(writer, 1);
            // the control: a fresh registration, and the one notification that must arrive
            fx.db.update("INSERT INTO outbox_relay_waiters (relay_id) VALUES ('waiting-relay')");
            insertRows(writer, 1);

            PGConnection pg = listener.unwrap(PGConnection.class);
            List<PGNotification> received = new ArrayList<>();
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (received.isEmpty() && System.nanoTime() < deadline) {
                PGNotification[] batch = pg.getNotifications(200);
                if (batch != null) {
                    received.addAll(List.of(batch));
                }
            }
            // notifications arrive in commit order: had either earlier commit notified, it would be here too
            PGNotification[] more = pg.getNotifications(-1);
            if (more != null) {
                received.addAll(List.of(more));
            }
            assertEquals(1, received.size(), "only the commit made while a relay waited notified: " + received);
            assertEquals(3, fx.countByStatus("PENDING"));
        }
    }

    @Test
    void anIdleListeningRelayRegistersAsWaitingAndWithdrawsWhenStopped() throws Exception {
        RelayApp relay = RelayApp.start(
                new Settings(fx.env("OUTBOX_RELAY_POLL_INTERVAL", ONCE_A_MINUTE, "OUTBOX_RELAY_ID", "idle-relay")));
        await().atMost(WAIT)
                .until(() -> fx.db.count("SELECT count(*) FROM outbox_relay_waiters" + " WHERE relay_id = 'idle-relay'")
                        == 1);
        relay.close();
        assertEquals(0, fx.db.count("SELECT count(*) FROM outbox_relay_waiters"));
    }

    @Test
    void aRelayThatDoesNotListenNeverAsksForNotifications() throws Exception {
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "test.notify");
        closing.add(wire);
        RelayApp relay = RelayApp.start(
                new Settings(fx.env("OUTBOX_RELAY_LISTEN", "false", "OUTBOX_RELAY_POLL_INTERVAL", "10ms")));
        closing.add(relay);
        try (Connection writer = connect()) {
            insertRows(writer, 1);
        }
        // it polled empty many times over before and after the row: never registered
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == 1);
        assertEquals(0, fx.db.count("SELECT count(*) FROM outbox_relay_waiters"));
    }

    @Test
    void aCommitWakesARelayThatPollsOnceAMinute() throws Exception {
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "test.notify");
        closing.add(wire);
        RelayApp relay = RelayApp.start(new Settings(fx.env("OUTBOX_RELAY_POLL_INTERVAL", ONCE_A_MINUTE)));
        closing.add(relay);
        PendingListener listener = relay.listener();
        assertNotNull(listener, "listening is on by default");
        await().atMost(WAIT).until(() -> listener.connects() == 1);

        try (Connection writer = connect()) {
            // each round starts only after the previous one was published and the relay went idle again
            for (int round = 1; round <= 3; round++) {
                insertRows(writer, 1);
                long expected = round;
                await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == expected);
            }
        }
        assertEquals(3, wire.await(3, WAIT).size());
        assertTrue(listener.notifications() >= 3, "woken by notifications: " + listener.notifications());
    }

    @Test
    void aKilledListeningConnectionIsReplacedAndWakeUpsContinue() throws Exception {
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "test.notify");
        closing.add(wire);
        RelayApp relay = RelayApp.start(new Settings(
                fx.env("OUTBOX_RELAY_POLL_INTERVAL", ONCE_A_MINUTE, "OUTBOX_RELAY_RECONNECT_INITIAL", "100ms")));
        closing.add(relay);
        PendingListener listener = relay.listener();
        await().atMost(WAIT).until(() -> listener.connects() == 1);

        long killed = fx.db.count("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                + " WHERE application_name = 'outbox-relay-listener' AND datname = current_database()");
        assertEquals(1, killed, "exactly the listener's connection was terminated");
        await().atMost(WAIT).until(() -> listener.connects() == 2);

        long before = listener.notifications();
        try (Connection writer = connect()) {
            insertRows(writer, 1);
        }
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == 1);
        assertEquals(1, wire.await(1, WAIT).size());
        assertTrue(listener.notifications() > before, "the new connection received the notification");
    }
}
