package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.Topology;
import dev.outbox.relay.cdc.CdcTestSupport;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay in CDC mode, in process, against real PostgreSQL (wal_level = logical) and RabbitMQ:
 * rows are published from the slot with nothing claimed, the slot advances only past recorded
 * outcomes (a restart publishes what was committed while the relay was away), what the stream
 * cannot finish goes to the retry path, and a version behind a parked one waits.
 */
class CdcRelayIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String SLOT = "outbox_relay_it";

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().purgeLedger();

    private final TestResources closing = fx.resources();

    @BeforeEach
    void clean() {
        CdcTestSupport.freshStart(fx.db, fx.broker, SLOT);
        fx.db.update("DELETE FROM outbox_cdc_position");
    }

    @AfterEach
    void close() throws Exception {
        closing.closeAll();
        CdcTestSupport.awaitUnreadAndDrop(fx.db, SLOT);
    }

    private RelayApp startRelay(String... env) {
        List<String> all = new ArrayList<>(List.of(
                "OUTBOX_RELAY_MODE",
                "cdc",
                "OUTBOX_RELAY_CDC_SLOT",
                SLOT,
                "OUTBOX_RELAY_CDC_TICK_INTERVAL",
                "200ms",
                "OUTBOX_RELAY_POLL_INTERVAL",
                "200ms"));
        all.addAll(List.of(env));
        RelayApp app = RelayApp.start(new Settings(fx.env(all.toArray(String[]::new))));
        closing.add(app);
        return app;
    }

    /**
     * In CDC mode too a row parked for want of a contract is published once one is registered:
     * the relay does not listen there, so its poll finds the registration, and the row made due
     * again goes by the polling claim, the retry path.
     */
    @Test
    void aRowParkedForAnUnregisteredTypeIsPublishedOnceItsContractIsRegistered() throws Exception {
        RecordingQueue wire = closing.add(fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "registry.probe"));
        startRelay("OUTBOX_RELAY_UNREGISTERED_TYPES", "park", "OUTBOX_RELAY_REGISTRY_POLL", "200ms");
        UUID id = UUID.randomUUID();
        fx.db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                        + " payload) VALUES (?, 'order', 'p-1', 'registry.probe', 'orders.events', 'registry.probe',"
                        + " '{\"probeId\": \"p-1\", \"count\": 1}')",
                id);
        await().atMost(Duration.ofSeconds(30)).until(() -> "PARKED".equals(fx.status(id)));
        assertEquals("CONTRACT_UNKNOWN", fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", id));

        new MessageRegistry(fx.db.dataSource())
                .registerContracts(
                        List.of(RelayContractsIT.parsed(
                                RelayContractsIT.contract("registry.probe", 1, false), "registry.probe", 1)),
                        "probe-service");

        assertEquals(
                List.of(id.toString()),
                wire.await(1, Duration.ofSeconds(30)).stream()
                        .map(TestBroker.Received::messageId)
                        .toList());
        await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(fx.status(id)));
    }

    /** Waits until every row is PUBLISHED and on the queue; fails on any message sent twice. */
    private List<TestBroker.Received> awaitEachPublishedOnce(RecordingQueue queue, List<NewOutboxMessage> rows)
            throws InterruptedException {
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == rows.size());
        List<TestBroker.Received> got = queue.await(rows.size(), WAIT);
        Map<String, Long> copies =
                got.stream().collect(Collectors.groupingBy(TestBroker.Received::messageId, Collectors.counting()));
        assertEquals(ids(rows), copies.keySet());
        assertEquals(
                List.of(),
                copies.entrySet().stream().filter(e -> e.getValue() > 1).toList(),
                "messages published twice");
        return got;
    }

    private static Set<String> ids(List<NewOutboxMessage> rows) {
        return rows.stream().map(r -> r.id().toString()).collect(Collectors.toSet());
    }

    @Test
    void rowsArePublishedFromTheSlotWithNothingClaimed() throws Exception {
        RecordingQueue queue = fx.observe("#");
        RelayApp relay = startRelay();
        await().atMost(WAIT).until(() -> relay.cdc().reading());
        List<NewOutboxMessage> rows = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            rows.addAll(fx.placeAndCapture(MessageContext.none()));
        }
        List<TestBroker.Received> got = queue.await(rows.size(), WAIT);
        assertEquals(ids(rows), got.stream().map(TestBroker.Received::messageId).collect(Collectors.toSet()));
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == rows.size());
        assertEquals(0, relay.relay().stats().claimed(), "the polling claim took nothing: the stream did it all");
        assertEquals(rows.size(), relay.cdc().streamed());
        // every version after its predecessor, as consumers need them
        Map<String, List<String>> byAggregate = new java.util.HashMap<>();
        for (TestBroker.Received r : got) {
            byAggregate
                    .computeIfAbsent(
                            r.delivery()
                                    .getProperties()
                                    .getHeaders()
                                    .get("aggregate_id")
                                    .toString(),
                            k -> new ArrayList<>())
                    .add(r.delivery().getProperties().getType());
        }
        byAggregate.values().forEach(types -> assertEquals(List.of("order.created", "payment.captured"), types));
        // the slot advanced past them: nothing to replay
        await().atMost(WAIT)
                .until(() -> fx.db.count(
                                "SELECT count(*) FROM pg_replication_slots s, outbox_cdc_position p WHERE s.slot_name = ?"
                                        + " AND p.slot_name = s.slot_name AND s.confirmed_flush_lsn >= p.confirmed_lsn",
                                SLOT)
                        == 1);
    }

    /**
     * Many small transactions from several writers, as an API under load commits them. A commit
     * comes through the slot once its WAL record is flushed, a moment before the committing session
     * makes it visible to others; the stream's mark could miss such a row, leave it PENDING, and the
     * retry path then published it a second time (the latency benchmark saw 1 to 3 in 900 rows at
     * 300 events/s). Now the outcome is written again until the row is seen: nothing is claimed,
     * nothing is sent twice, and every aggregate's versions arrive in order.
     */
    @Test
    void steadyCommitsFromManyWritersAreEachPublishedOnceAndInOrder() throws Exception {
        RecordingQueue queue = fx.observe("#");
        RelayApp relay = startRelay();
        await().atMost(WAIT).until(() -> relay.cdc().reading());
        int writers = 6;
        int ordersEach = 150;
        List<NewOutboxMessage> rows = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < ordersEach; i++) {
                        rows.addAll(fx.placeAndCapture(MessageContext.none()));
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(2, java.util.concurrent.TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        List<TestBroker.Received> got = awaitEachPublishedOnce(queue, rows);
        assertEquals(0, relay.relay().stats().claimed(), "the retry path took nothing the stream was publishing");
        Map<String, List<String>> byAggregate = new java.util.HashMap<>();
        for (TestBroker.Received r : got) {
            byAggregate
                    .computeIfAbsent(r.header("aggregate_id").toString(), k -> new ArrayList<>())
                    .add(r.delivery().getProperties().getType());
        }
        byAggregate.values().forEach(types -> assertEquals(List.of("order.created", "payment.captured"), types));
        System.out.printf(
                "%d rows from %d writers: %d outcome(s) written again because the row was not visible yet%n",
                rows.size(), writers, relay.cdc().marksDeferred());
    }

    /**
     * The race made wide and certain: a writer's commit is flushed to the WAL (so the slot streams
     * it and the broker confirms it) while its session still waits, invisible to every other
     * session, for a synchronous standby that does not exist. The stream's mark cannot see the row
     * then. Before the fix it gave up on it ("no longer PENDING"), the row stayed PENDING, and the
     * retry path published it a second time once the next tick handed it over. Now the outcome is
     * written again until the row is visible: published once, nothing claimed.
     */
    /**
     * Commits that reach the WAL, and so the slot, while staying invisible to every other session:
     * the writer's session waits for a synchronous standby that does not exist (PostgreSQL makes a
     * transaction visible only after that wait). Every other session of the database commits
     * without waiting ({@code synchronous_commit = local} for new sessions: create it before the
     * relay). {@link #release} lets the waiting commits finish.
     */
    private final class InvisibleCommits implements AutoCloseable {
        private final String database = (String) fx.db.scalar("SELECT current_database()");
        private final java.util.concurrent.ExecutorService writers =
                java.util.concurrent.Executors.newCachedThreadPool();

        InvisibleCommits() {
            fx.db.execute("ALTER DATABASE \"" + database + "\" SET synchronous_commit = local");
        }

        /** Runs {@code sql} in its own transaction; its commit stays invisible until {@link #release}. */
        java.util.concurrent.Future<?> commit(String sql) {
            fx.db.execute("ALTER SYSTEM SET synchronous_standby_names = 'outbox_it_nobody'");
            fx.db.scalar("SELECT pg_reload_conf()");
            return writers.submit(() -> {
                try (java.sql.Connection c =
                                java.sql.DriverManager.getConnection(fx.db.url(), fx.db.user(), fx.db.password());
                        java.sql.Statement st = c.createStatement()) {
                    st.execute("SET synchronous_commit = on");
                    st.execute(sql);
                }
                return null;
            });
        }

        /**
         * Runs {@code sql} in a session that neither waits for the standby nor fires ordinary
         * triggers ({@code session_replication_role = replica}, as a replication apply worker or a
         * bulk loader runs): the gapless-versions trigger would otherwise refuse a version whose
         * predecessor it cannot see yet.
         */
        void commitAsReplica(String sql) throws java.sql.SQLException {
            try (java.sql.Connection c =
                            java.sql.DriverManager.getConnection(fx.db.url(), fx.db.user(), fx.db.password());
                    java.sql.Statement st = c.createStatement()) {
                st.execute("SET synchronous_commit = local");
                st.execute("SET session_replication_role = replica");
                st.execute(sql);
            }
        }

        void release() {
            fx.db.execute("ALTER SYSTEM RESET synchronous_standby_names");
            fx.db.scalar("SELECT pg_reload_conf()");
        }

        @Override
        public void close() {
            release();
            fx.db.execute("ALTER DATABASE \"" + database + "\" RESET synchronous_commit");
            writers.shutdownNow();
        }
    }

    private static String bulkRow(UUID id, String aggregateId, Long version, String nextAttemptAt) {
        return "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                + " exchange_name, routing_key, payload, next_attempt_at) VALUES ('" + id + "', 'bulk', '"
                + aggregateId + "', " + version + ", 'bulk.loaded', 'orders.events', 'bulk.loaded',"
                + " '{\"sku\":\"A\"}', " + nextAttemptAt + ")";
    }

    /**
     * The race made wide and certain ({@link InvisibleCommits}): the slot streams the commit and the
     * broker confirms it while no other session can see the row. Before the fix the stream's mark
     * gave up on it ("no longer PENDING"), the row stayed PENDING, and the retry path published it
     * a second time once the next tick handed it over. Now the outcome is written again until the
     * row is visible: published once, nothing claimed.
     */
    @Test
    void aCommitStreamedBeforeItIsVisibleIsMarkedOnceItIsNotPublishedTwice() throws Exception {
        try (InvisibleCommits invisible = new InvisibleCommits()) {
            RecordingQueue queue = fx.observe("#");
            RelayApp relay = startRelay();
            await().atMost(WAIT).until(() -> relay.cdc().reading());
            UUID id = UUID.randomUUID();
            java.util.concurrent.Future<?> commit = invisible.commit(bulkRow(id, "b-1", null, "now()"));
            List<TestBroker.Received> first = queue.await(1, WAIT);
            assertEquals(
                    List.of(id.toString()),
                    first.stream().map(TestBroker.Received::messageId).toList());
            await().atMost(WAIT).until(() -> relay.cdc().marksDeferred() > 0);
            assertEquals(0, fx.count("id = '" + id + "'"), "the row is not visible yet");
            assertTrue(!commit.isDone(), "the writer still waits for the standby");
            invisible.release();
            commit.get(30, java.util.concurrent.TimeUnit.SECONDS);
            await().atMost(WAIT).until(() -> "PUBLISHED".equals(fx.status(id)));
            // several ticks and retry-path polls later (200 ms each), still one copy and nothing claimed
            long streamed = relay.cdc().streamed();
            await().during(Duration.ofMillis(1_500))
                    .atMost(WAIT)
                    .until(() -> queue.drain().isEmpty());
            assertEquals(0, relay.relay().stats().claimed(), "the retry path took nothing");
            assertEquals(streamed, relay.cdc().streamed());
        }
    }

    /**
     * Order across the same race: version 1 is not due yet, so the stream leaves it to the retry
     * path, and its commit is not visible yet; version 2 commits right behind it. Asked whether an
     * earlier version is unfinished, the database saw none (version 1 was invisible) and version 2
     * went first. Now the version the stream left must be seen finished before its successor goes.
     * (The gapless-versions trigger keeps the API's writers out of this; a session that skips
     * triggers is not kept out.)
     */
    @Test
    void aVersionBehindOneLeftToTheRetryPathWaitsEvenIfThatOneIsNotVisibleYet() throws Exception {
        try (InvisibleCommits invisible = new InvisibleCommits()) {
            RecordingQueue queue = fx.observe("#");
            RelayApp relay = startRelay();
            await().atMost(WAIT).until(() -> relay.cdc().reading());
            UUID v1 = UUID.randomUUID();
            UUID v2 = UUID.randomUUID();
            java.util.concurrent.Future<?> commit =
                    invisible.commit(bulkRow(v1, "b-2", 1L, "now() + interval '2 seconds'"));
            await().atMost(WAIT).until(() -> relay.cdc().leftToRetryPath() == 1);
            invisible.commitAsReplica(bulkRow(v2, "b-2", 2L, "now()"));
            await().atMost(WAIT).until(() -> relay.cdc().leftToRetryPath() == 2);
            invisible.release();
            commit.get(30, java.util.concurrent.TimeUnit.SECONDS);
            List<TestBroker.Received> got = queue.await(2, WAIT);
            assertEquals(
                    List.of(v1.toString(), v2.toString()),
                    got.stream().map(TestBroker.Received::messageId).toList(),
                    "version 1 before version 2");
        }
    }

    /**
     * A migration of message_outbox while rows stream: a column added (no rewrite), a column added
     * with a volatile default (PostgreSQL rewrites the table under an exclusive lock), then both
     * dropped, all while writers keep committing. The slot sends the table's new shape before the
     * first row written in it; every row, before, during and after, is published once, from the
     * stream.
     */
    @Test
    void rowsStreamThroughAMigrationOfTheOutboxTable() throws Exception {
        RecordingQueue queue = fx.observe("#");
        RelayApp relay = startRelay();
        await().atMost(WAIT).until(() -> relay.cdc().reading());
        List<NewOutboxMessage> rows = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
        java.util.concurrent.ExecutorService writer = java.util.concurrent.Executors.newSingleThreadExecutor();
        java.util.concurrent.Future<?> load = writer.submit(() -> {
            while (writing.get()) {
                rows.addAll(fx.placeAndCapture(MessageContext.none()));
            }
            return null;
        });
        try {
            await().atMost(WAIT).until(() -> rows.size() >= 40);
            fx.db.execute("ALTER TABLE message_outbox ADD COLUMN it_migration_note text DEFAULT 'added'");
            int afterFirst = rows.size();
            await().atMost(WAIT).until(() -> rows.size() >= afterFirst + 40);
            fx.db.execute(
                    "ALTER TABLE message_outbox ADD COLUMN it_migration_key uuid NOT NULL DEFAULT gen_random_uuid()");
            int afterRewrite = rows.size();
            await().atMost(WAIT).until(() -> rows.size() >= afterRewrite + 40);
            fx.db.execute("ALTER TABLE message_outbox DROP COLUMN it_migration_key, DROP COLUMN it_migration_note");
            int afterDrop = rows.size();
            await().atMost(WAIT).until(() -> rows.size() >= afterDrop + 40);
        } finally {
            writing.set(false);
            load.get(30, java.util.concurrent.TimeUnit.SECONDS);
            writer.shutdownNow();
            fx.db.execute("ALTER TABLE message_outbox DROP COLUMN IF EXISTS it_migration_key,"
                    + " DROP COLUMN IF EXISTS it_migration_note");
        }
        awaitEachPublishedOnce(queue, rows);
        assertEquals(rows.size(), relay.cdc().streamed(), "every row came through the stream");
        assertEquals(0, relay.relay().stats().claimed());
    }

    /**
     * A recorder that cannot write (the outbox table locked by a migration, a slow disk) stops the
     * stream from reading once too many outcomes wait. It must still answer the server: the
     * benchmark's stream, throttled for longer than wal_sender_timeout, was ended by the server
     * every 30 s or so and replayed thousands of rows each time. Here the marks are blocked 5 times
     * longer than the relay's wal_sender_timeout (1 s): the stream stays the same one throughout.
     */
    @Test
    void aStreamThrottledByABlockedRecorderKeepsItsSession() throws Exception {
        RelayApp first = startRelay();
        await().atMost(WAIT).until(() -> first.cdc().reading());
        first.close();
        closing.remove(first);
        await().atMost(WAIT)
                .until(() ->
                        fx.db.count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active", SLOT)
                                == 0);
        List<NewOutboxMessage> rows = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            rows.addAll(fx.placeAndCapture(MessageContext.none()));
        }
        RecordingQueue queue = fx.observe("#");
        Set<String> seen = new HashSet<>();
        RelayApp relay;
        try (java.sql.Connection lock =
                        java.sql.DriverManager.getConnection(fx.db.url(), fx.db.user(), fx.db.password());
                java.sql.Statement st = lock.createStatement()) {
            lock.setAutoCommit(false);
            // reads go on, every update of the outbox waits
            st.execute("LOCK TABLE message_outbox IN SHARE MODE");
            relay = startRelay("OUTBOX_RELAY_CDC_MAX_UNRECORDED", "100", "OUTBOX_RELAY_CDC_WAL_SENDER_TIMEOUT", "1s");
            queue.await(100, WAIT);
            await().during(Duration.ofSeconds(5))
                    .atMost(WAIT)
                    .until(() -> relay.cdc().reading());
            lock.commit();
        }
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == rows.size());
        assertEquals(1, relay.cdc().streamsOpened(), "the server never ended the stream");
        Set<String> got = new HashSet<>();
        queue.drain().forEach(r -> got.add(r.messageId()));
        assertTrue(got.size() <= rows.size());
    }

    /**
     * A transaction's rows are held until its commit; one larger than
     * OUTBOX_RELAY_CDC_MAX_TRANSACTION_ROWS (a bulk load) is left whole to the retry path, so the
     * relay's memory stays bounded, and the stream goes on with what comes after it.
     */
    @Test
    void aTransactionTooLargeToHoldIsPublishedByTheRetryPath() throws Exception {
        RecordingQueue queue = fx.observe("#");
        RelayApp relay = startRelay("OUTBOX_RELAY_CDC_MAX_TRANSACTION_ROWS", "50");
        await().atMost(WAIT).until(() -> relay.cdc().reading());
        fx.bulkRows(120); // one statement, one transaction
        List<NewOutboxMessage> after = fx.placeAndCapture(MessageContext.none());
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == 120 + after.size());
        List<TestBroker.Received> got = queue.await(120 + after.size(), WAIT);
        assertEquals(
                120 + after.size(),
                got.stream().map(TestBroker.Received::messageId).distinct().count());
        assertEquals(120, relay.relay().stats().claimed(), "the bulk load went by the retry path");
        assertEquals(120, relay.cdc().leftToRetryPath());
        assertEquals(1, relay.cdc().streamsOpened());
    }

    /**
     * The broker goes away for three times the relay's wal_sender_timeout (1 s here) while rows
     * are committed. The stream waits for the broker and keeps its session: the chaos soak's broker
     * restart ended it (a channel opened on a connection that had just closed threw), handed the
     * slot to the standby and replayed everything in flight; and a stream waiting on the broker
     * without answering the server lost the slot as well.
     */
    @Test
    void aBrokerOutageDoesNotCostTheStreamItsSession() throws Exception {
        RecordingQueue queue = fx.observe("#");
        try (dev.outbox.testkit.TcpProxy proxy =
                dev.outbox.testkit.TcpProxy.start(fx.broker.host(), fx.broker.port())) {
            RelayApp relay = startRelay(
                    "OUTBOX_AMQP_URI",
                    fx.broker.uriVia(proxy.host(), proxy.port()),
                    "OUTBOX_RELAY_CDC_WAL_SENDER_TIMEOUT",
                    "1s",
                    "OUTBOX_RELAY_RECONNECT_MAX",
                    "500ms");
            await().atMost(WAIT).until(() -> relay.cdc().reading());
            List<NewOutboxMessage> rows = new ArrayList<>(fx.placeAndCapture(MessageContext.none()));
            Set<String> seen = new HashSet<>();
            queue.await(rows.size(), WAIT).forEach(r -> seen.add(r.messageId()));
            for (int outage = 0; outage < 2; outage++) {
                proxy.cut();
                for (int i = 0; i < 5; i++) {
                    rows.addAll(fx.placeAndCapture(MessageContext.none()));
                }
                await().pollDelay(Duration.ofSeconds(3)).atMost(WAIT).until(() -> true);
                proxy.restore();
                await().atMost(WAIT).until(() -> {
                    queue.drain().forEach(r -> seen.add(r.messageId()));
                    return seen.containsAll(ids(rows));
                });
            }
            await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == rows.size());
            assertEquals(1, relay.cdc().streamsOpened(), "one stream throughout both outages");
        }
    }

    @Test
    void whatWasCommittedWhileTheRelayWasAwayIsPublishedWhenItComesBack() throws Exception {
        RecordingQueue queue = fx.observe("#");
        RelayApp first = startRelay();
        await().atMost(WAIT).until(() -> first.cdc().reading());
        List<NewOutboxMessage> before = fx.placeAndCapture(MessageContext.none());
        queue.await(before.size(), WAIT);
        first.close();
        closing.remove(first);

        List<NewOutboxMessage> meanwhile = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            meanwhile.addAll(fx.placeAndCapture(MessageContext.none()));
        }
        RelayApp second = startRelay();
        Set<String> seen = new HashSet<>();
        await().atMost(WAIT).until(() -> {
            queue.drain().forEach(r -> seen.add(r.messageId()));
            return seen.containsAll(ids(meanwhile));
        });
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == before.size() + meanwhile.size());
        assertEquals(meanwhile.size(), second.cdc().streamed(), "read from the slot, not polled");
    }

    @Test
    void aPublicationThatLostItsTableGetsItBackAndRowsStream() throws Exception {
        // message_outbox dropped and created again (a schema migrated anew) leaves the database's
        // publication without it: the slot would stream nothing, silently
        fx.db.execute("ALTER PUBLICATION outbox_inserts DROP TABLE message_outbox");
        try {
            RecordingQueue queue = fx.observe("#");
            RelayApp relay = startRelay();
            await().atMost(WAIT).until(() -> relay.cdc().reading());
            assertEquals(
                    1L,
                    fx.db.count("SELECT count(*) FROM pg_publication_tables WHERE pubname = 'outbox_inserts'"
                            + " AND tablename = 'message_outbox'"));
            List<NewOutboxMessage> rows = fx.placeAndCapture(MessageContext.none());
            queue.await(rows.size(), WAIT);
            await().atMost(WAIT).until(() -> relay.cdc().streamed() == rows.size());
        } finally {
            fx.db.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_publication_tables WHERE pubname ="
                    + " 'outbox_inserts' AND tablename = 'message_outbox') THEN ALTER PUBLICATION outbox_inserts"
                    + " ADD TABLE message_outbox; END IF; END $$");
        }
    }

    @Test
    void rowsCommittedBeforeTheSlotExistedArePublishedByTheRetryPath() throws Exception {
        RecordingQueue queue = fx.observe("#");
        List<NewOutboxMessage> old = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            old.addAll(fx.placeAndCapture(MessageContext.none()));
        }
        RelayApp relay = startRelay();
        List<TestBroker.Received> got = queue.await(old.size(), WAIT);
        assertEquals(ids(old), got.stream().map(TestBroker.Received::messageId).collect(Collectors.toSet()));
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == old.size());
        assertEquals(0, relay.cdc().streamed(), "not in the slot's stream");
        assertTrue(relay.relay().stats().claimed() >= old.size(), "claimed by the retry path");
    }

    @Test
    void aRowTheBrokerCannotRouteIsParkedAndTheVersionBehindItWaits() throws Exception {
        RecordingQueue queue = fx.observe("#");
        RelayApp relay = startRelay();
        await().atMost(WAIT).until(() -> relay.cdc().reading());
        String aggregate = UUID.randomUUID().toString();
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        // version 1 goes to an exchange with no queue bound for it (amq.topic): returned, parked
        fx.db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload) VALUES (?, 'cdc', ?, 1, 'cdc.test', 'amq.topic',"
                        + " 'nobody.listens', '{}')",
                first,
                aggregate);
        fx.db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload) VALUES (?, 'cdc', ?, 2, 'cdc.test', 'orders.events',"
                        + " 'cdc.test', '{}')",
                second,
                aggregate);
        List<NewOutboxMessage> others = fx.placeAndCapture(MessageContext.none());
        queue.await(others.size(), WAIT);
        await().atMost(WAIT).until(() -> "PARKED".equals(fx.status(first)));
        assertEquals("UNROUTABLE", fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", first));
        // a second of ticks (every 200 ms): whatever the retry path could take, it has had the chance
        await().during(Duration.ofSeconds(1)).atMost(WAIT).until(() -> "PENDING".equals(fx.status(second)));
        assertTrue(queue.drain().stream().noneMatch(r -> r.messageId().equals(second.toString())));
        assertTrue(relay.cdc().leftToRetryPath() >= 1, "the stream left version 2 to the retry path");

        // an operator settles the parked version: the one behind it goes
        fx.db.update("UPDATE message_outbox SET status = 'CANCELLED', cancelled_at = now() WHERE id = ?", first);
        await().atMost(WAIT).until(() -> "PUBLISHED".equals(fx.status(second)));
    }
}
