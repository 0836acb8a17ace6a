package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.relay.RelayLock;
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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases tied to the relay's life (migration V7, {@link RelayLiveness}), with real processes: a
 * relay killed with SIGKILL loses its rows to another relay within seconds although the lease is
 * two minutes; a relay paused with SIGSTOP keeps them; a relay whose liveness connection is
 * terminated stops claiming until it holds its lock again, and never takes it from another
 * process with its id; a relay restarted with the same id takes its own rows back at once.
 *
 * <p>A relay is made to hold leased rows without any fault injection in the product: its broker
 * connection runs through a {@link TcpProxy} that is stalled after it connected, so it claims and
 * sends, and no confirm can come back.
 */
class RelayLivenessIT {
    private static final Logger LOG = LoggerFactory.getLogger(RelayLivenessIT.class);
    /** The goal: a dead relay's rows are published by another relay within this, after the grace. */
    private static final Duration RECOVERY_BOUND = Duration.ofSeconds(10);
    /** Every relay here keeps the default two-minute lease: only liveness can explain a recovery in seconds. */
    private static final String LEASE = "2m";
    /**
     * The sweeping relay's grace where a test is not about the grace; {@code -Dliveness.grace=9s}
     * measures the recovery time with the default.
     */
    private static final String GRACE = System.getProperty("liveness.grace", "2s");

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().exchange();

    private final TestResources closing = fx.resources();

    private RecordingQueue wire;

    @BeforeEach
    void clean() {
        wire = closeLater(fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#"));
    }

    private <T extends AutoCloseable> T closeLater(T c) {
        closing.add(c);
        return c;
    }

    /** A relay process holding the first version of {@code orders} orders, unable to finish them. */
    private record Holder(
            String relayId, JavaProcess process, TcpProxy brokerProxy, List<UUID> firstVersions, List<UUID> allRows) {}

    private Holder relayHoldingRows(String relayId, int orders, String... env) throws Exception {
        TcpProxy proxy = closeLater(TcpProxy.start(fx.broker.host(), fx.broker.port()));
        List<String> kv = new ArrayList<>(List.of(
                "OUTBOX_RELAY_ID",
                relayId,
                "OUTBOX_AMQP_URI",
                fx.broker.uriVia(proxy.host(), proxy.port()),
                "OUTBOX_RELAY_LEASE",
                LEASE,
                "OUTBOX_RELAY_CONFIRM_TIMEOUT",
                "40s",
                // the stall must not end in a missed-heartbeat disconnect while the test looks on
                "OUTBOX_AMQP_HEARTBEAT",
                "60s"));
        kv.addAll(List.of(env));
        JavaProcess process =
                closeLater(JavaProcess.start(relayId, RelayMain.class.getName(), fx.env(kv.toArray(String[]::new))));
        process.awaitOutput(Pattern.compile("relay " + relayId + " holds its liveness lock"), Duration.ofSeconds(30));
        // one order published first: its channel is open and in confirm mode before the stall
        List<UUID> warmUp = fx.placeAndCapture(MessageContext.none()).stream()
                .map(NewOutboxMessage::id)
                .toList();
        await().atMost(Duration.ofSeconds(30)).until(() -> published(warmUp) == warmUp.size());
        proxy.stall();
        List<UUID> first = new ArrayList<>();
        List<UUID> all = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            List<NewOutboxMessage> rows = fx.placeAndCapture(MessageContext.none());
            first.add(rows.get(0).id());
            rows.forEach(r -> all.add(r.id()));
        }
        // it leases every first version and sends them into the stalled connection; the second
        // versions wait for the first ones, as strict per-aggregate order demands
        await().atMost(Duration.ofSeconds(30)).until(() -> heldBy(relayId) == orders);
        return new Holder(relayId, process, proxy, first, all);
    }

    private RelayApp relay(String relayId, String... env) {
        return closeLater(startRelay(relayId, env));
    }

    /** An in-process relay with the two-minute lease, once it holds its liveness lock. */
    private RelayApp startRelay(String relayId, String... env) {
        List<String> kv = new ArrayList<>(List.of("OUTBOX_RELAY_ID", relayId, "OUTBOX_RELAY_LEASE", LEASE));
        kv.addAll(List.of(env));
        RelayApp app = RelayApp.start(new Settings(fx.env(kv.toArray(String[]::new))));
        await().atMost(Duration.ofSeconds(30)).until(() -> app.liveness().holdsLock());
        return app;
    }

    private long heldBy(String relayId) {
        return fx.count("status = 'IN_PROGRESS' AND locked_by = '" + relayId + "'");
    }

    private long published(List<UUID> ids) {
        return fx.db.count("SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED' AND id = ANY(?)", (Object)
                ids.toArray(UUID[]::new));
    }

    private static void signal(JavaProcess process, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid()))
                .inheritIO()
                .start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + signal + " failed");
    }

    @Test
    void aKilledRelaysRowsArePublishedByAnotherRelayWithinTenSecondsOfTheGraceThoughTheLeaseIsTwoMinutes()
            throws Exception {
        // -Dliveness.trials=10 measures the recovery time over several crashes (the README's numbers)
        int trials = Integer.getInteger("liveness.trials", 1);
        int orders = 50;
        List<Long> millis = new ArrayList<>();
        for (int t = 0; t < trials; t++) {
            Holder doomed = relayHoldingRows("relay-doomed-" + t, orders);
            // started once the doomed relay holds its rows, so that it cannot have claimed them itself;
            // a short grace: what is measured here is how fast a dead relay's rows come back once it
            // counts as dead (the default grace, 9 s, adds itself to this)
            try (RelayApp survivor = startRelay("relay-survivor", "OUTBOX_RELAY_LIVENESS_GRACE", GRACE)) {
                long killedAt = System.nanoTime();
                doomed.process().kill();
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() ->
                                published(doomed.allRows()) == doomed.allRows().size());
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                millis.add(took);
                LOG.info(
                        "trial {}: {} rows of a SIGKILLed relay (and the versions behind them) published {} ms"
                                + " after the kill",
                        t,
                        doomed.allRows().size(),
                        took);
                assertTrue(
                        took
                                < RECOVERY_BOUND
                                        .plus(Duration.parse("PT" + GRACE.toUpperCase(java.util.Locale.ROOT)))
                                        .toMillis(),
                        "published " + took + " ms after the kill");
                assertEquals(orders, survivor.liveness().recovered());
            }
            assertEquals(
                    orders,
                    fx.db.count(
                            "SELECT count(*) FROM message_outbox WHERE id = ANY(?)"
                                    + " AND last_error_code = 'STALE_LOCK' AND attempt_count = 1",
                            (Object) doomed.firstVersions().toArray(UUID[]::new)),
                    "given back for ordinary claims without counting the attempt, then published once by the"
                            + " survivor");
        }
        assertEquals(0, fx.count("status <> 'PUBLISHED'"));
        Collections.sort(millis);
        LOG.info(
                "SIGKILL to all rows published over {} trial(s): p50 {} ms, max {} ms, all {}",
                trials,
                millis.get((millis.size() - 1) / 2),
                millis.get(millis.size() - 1),
                millis);
    }

    @Test
    void aPausedRelayKeepsItsLeasesAndItsMarksStillCountWhenItResumes() throws Exception {
        int orders = 5;
        Holder paused = relayHoldingRows("relay-paused", orders);
        // no grace: the paused relay's lock alone must keep its rows (its heartbeats stop with it)
        RelayApp watcher = relay(
                "relay-watcher", "OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL", "100ms", "OUTBOX_RELAY_LIVENESS_GRACE", "0s");
        signal(paused.process(), "STOP");
        try {
            long sweeps = watcher.liveness().sweeps();
            // twenty sweeps of the other relay while this one is frozen: each would have taken its
            // rows if a paused relay looked dead
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> watcher.liveness().sweeps() >= sweeps + 20);
            assertEquals(orders, heldBy("relay-paused"), "a paused relay keeps its leases");
            assertEquals(0, watcher.liveness().recovered());
        } finally {
            signal(paused.process(), "CONT");
        }
        paused.brokerProxy().resume();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> published(paused.allRows()) == paused.allRows().size());
        // its own marks recorded the first versions: never given away, one attempt, one copy on the wire
        assertEquals(
                orders,
                fx.db.count(
                        "SELECT count(*) FROM message_outbox WHERE id = ANY(?)"
                                + " AND last_error_code IS NULL AND attempt_count = 1",
                        (Object) paused.firstVersions().toArray(UUID[]::new)));
        // the warm-up order's two messages came first
        List<TestBroker.Received> received = wire.await(paused.allRows().size() + 2, Duration.ofSeconds(10));
        Map<String, Long> copies =
                received.stream().collect(Collectors.groupingBy(TestBroker.Received::messageId, Collectors.counting()));
        for (UUID id : paused.allRows()) {
            assertEquals(1L, copies.get(id.toString()), "published once: " + id);
        }
    }

    @Test
    void aRelayThatLosesItsLivenessSessionClaimsNothingUntilItHoldsItsLockAgainAndNeverTakesItFromAnother()
            throws Exception {
        RelayApp relay = relay("relay-terminated", "OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL", "100ms");
        RelayLiveness liveness = relay.liveness();
        int backend = liveness.backendPid();
        int key = ((Number) fx.db.scalar("SELECT lock_key FROM outbox_relays WHERE relay_id = 'relay-terminated'"))
                .intValue();
        try (Connection twin = DriverManager.getConnection(fx.db.url(), fx.db.user(), fx.db.password())) {
            // another session asks for the relay's lock first, as a second process with the same relay
            // id would; it is queued behind the relay's session and gets the lock the moment that ends
            CompletableFuture<Void> twinHolds = CompletableFuture.runAsync(
                    () -> query(twin, "SELECT pg_advisory_lock(" + RelayLock.NAMESPACE + ", " + key + ")"));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fx.db.count(
                                    "SELECT count(*) FROM pg_locks"
                                            + " WHERE locktype = 'advisory' AND objid::text = ? AND NOT granted",
                                    String.valueOf(key))
                            == 1);
            fx.db.scalar("SELECT pg_terminate_backend(?, 10000)", backend);
            twinHolds.get(10, TimeUnit.SECONDS);

            await().atMost(Duration.ofSeconds(10)).until(() -> !liveness.holdsLock());
            assertEquals(1, liveness.lost());
            HttpResponse<String> health = get(relay, "/health/ready");
            assertEquals(503, health.statusCode(), health.body());
            assertTrue(health.body().contains("\"liveness\":\"DOWN"), health.body());

            List<UUID> rows = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                fx.placeAndCapture(MessageContext.none()).forEach(r -> rows.add(r.id()));
            }
            long refused = liveness.refused();
            // the relay keeps asking for its lock and is refused; its publishers poll every 20 ms meanwhile
            await().atMost(Duration.ofSeconds(10)).until(() -> liveness.refused() >= refused + 5);
            assertEquals(rows.size(), fx.count("status = 'PENDING'"), "nothing is claimed without the lock");
            assertEquals(1, liveness.acquisitions(), "the lock is never taken from its holder");

            query(twin, "SELECT pg_advisory_unlock(" + RelayLock.NAMESPACE + ", " + key + ")");
            await().atMost(Duration.ofSeconds(10)).until(() -> liveness.holdsLock());
            assertEquals(2, liveness.acquisitions());
            await().atMost(Duration.ofSeconds(10)).until(() -> published(rows) == rows.size());
        }
        assertEquals(200, get(relay, "/health/ready").statusCode());
        String metrics = get(relay, "/metrics").body();
        assertTrue(metrics.contains("outbox_relay_liveness_lost_total{application=\"outbox-relay\"} 1.0"), metrics);
        assertTrue(metrics.contains("outbox_relay_liveness_held{application=\"outbox-relay\"} 1.0"), metrics);
        assertTrue(metrics.contains("outbox_relays_live{application=\"outbox-relay\"} 1.0"), metrics);
    }

    @Test
    void aRelayWhoseRegistrationIsDeletedUnderItWritesItBackAndGoesOnClaiming() throws Exception {
        // the claim fence looks for the relay's registration; ops/bench truncated outbox_relays
        // between its warm-up and its measurement, and the relays then claimed nothing for ever
        RelayApp relay = relay("relay-erased", "OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL", "200ms");
        List<UUID> first = fx.placeAndCapture(MessageContext.none()).stream()
                .map(NewOutboxMessage::id)
                .toList();
        await().atMost(Duration.ofSeconds(30)).until(() -> published(first) == first.size());
        Object key = fx.db.scalar("SELECT lock_key FROM outbox_relays WHERE relay_id = 'relay-erased'");
        fx.db.update("DELETE FROM outbox_relays");
        List<UUID> after = fx.placeAndCapture(MessageContext.none()).stream()
                .map(NewOutboxMessage::id)
                .toList();
        await().atMost(Duration.ofSeconds(10)).until(() -> published(after) == after.size());
        assertEquals(
                key,
                fx.db.scalar("SELECT lock_key FROM outbox_relays WHERE relay_id = 'relay-erased'"),
                "written back under the key whose lock it holds");
        assertTrue(relay.liveness().holdsLock());
    }

    @Test
    void aRelayRestartedWithTheSameIdTakesItsOwnRowsBackAtStart() throws Exception {
        int orders = 20;
        Holder before = relayHoldingRows("relay-phoenix", orders);
        before.process().kill();
        long restartedAt = System.nanoTime();
        // the only relay: no one else could give the rows back, and the lease has two minutes to go
        RelayApp again = relay("relay-phoenix");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> published(before.allRows()) == before.allRows().size());
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt);
        assertTrue(took < RECOVERY_BOUND.toMillis(), "published " + took + " ms after the restart");
        assertEquals(orders, again.liveness().recovered());
        assertEquals(orders, fx.count("last_error_code = 'STALE_LOCK' AND attempt_count = 1"));
    }

    @Test
    void aRelayRunWithoutLivenessUnderAnIdRegisteredBeforeKeepsItsRowsFromPeersSweeps() throws Exception {
        String relayId = "relay-pooled";
        // an earlier run of this relay id held its liveness lock, and is gone: the id stays registered
        try (RelayLock earlier = RelayLock.connect(
                DatabaseConfig.of(fx.db.url(), fx.db.user(), fx.db.password(), "relay-liveness-it"),
                relayId,
                Duration.ofSeconds(10))) {
            assertTrue(earlier.tryAcquire());
        }
        // now it runs behind a transaction-mode pooler, without liveness, and holds leased rows
        TcpProxy proxy = closeLater(TcpProxy.start(fx.broker.host(), fx.broker.port()));
        closeLater(RelayApp.start(new Settings(fx.env(
                "OUTBOX_RELAY_ID",
                relayId,
                "OUTBOX_RELAY_LIVENESS",
                "false",
                "OUTBOX_AMQP_URI",
                fx.broker.uriVia(proxy.host(), proxy.port()),
                "OUTBOX_RELAY_LEASE",
                LEASE,
                "OUTBOX_RELAY_CONFIRM_TIMEOUT",
                "40s",
                "OUTBOX_AMQP_HEARTBEAT",
                "60s"))));
        List<UUID> warmUp = fx.placeAndCapture(MessageContext.none()).stream()
                .map(NewOutboxMessage::id)
                .toList();
        await().atMost(Duration.ofSeconds(30)).until(() -> published(warmUp) == warmUp.size());
        proxy.stall();
        int orders = 5;
        List<UUID> all = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            fx.placeAndCapture(MessageContext.none()).forEach(r -> all.add(r.id()));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> heldBy(relayId) == orders);

        RelayApp watcher = relay(
                "relay-watcher", "OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL", "100ms", "OUTBOX_RELAY_LIVENESS_GRACE", "0s");
        long sweeps = watcher.liveness().sweeps();
        // its lock is free for ever: each of these sweeps would give its rows away if it were still registered
        await().atMost(Duration.ofSeconds(30)).until(() -> watcher.liveness().sweeps() >= sweeps + 20);
        assertEquals(orders, heldBy(relayId), "recovered by the lease alone, as the README says");
        assertEquals(0, watcher.liveness().recovered());

        proxy.resume();
        await().atMost(Duration.ofSeconds(30)).until(() -> published(all) == all.size());
        assertEquals(
                0,
                fx.count("last_error_code IN ('RELAY_DIED', 'STALE_LOCK')"),
                "nothing was given away (a first give-back is STALE_LOCK, a second RELAY_DIED)");
    }

    @Test
    void aPeerThatLosesItsLockAndTakesItAgainWithinTheGraceKeepsItsRowsWhileARelayReallyDeadLosesThemAfterIt()
            throws Exception {
        int orders = 5;
        Duration grace = Duration.ofSeconds(5);
        // its lock's session is cut three times, as a database failover or a network blip cuts it; it
        // notices at its next check (500 ms) and takes its lock again
        Holder peer = relayHoldingRows("relay-blinking", orders, "OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL", "500ms");
        RelayApp watcher = relay(
                "relay-watcher",
                "OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL",
                "100ms",
                "OUTBOX_RELAY_LIVENESS_GRACE",
                grace.toMillis() + "ms");
        // the watcher judges nobody in its first grace: wait until it sweeps for real
        await().atMost(Duration.ofSeconds(30)).until(() -> watcher.liveness().sweeps() >= 1);
        long sweptInGaps = 0;
        for (int cut = 0; cut < 3; cut++) {
            int backend = backendOf("relay-blinking");
            long sweeps = watcher.liveness().sweeps();
            assertEquals(Boolean.TRUE, fx.db.scalar("SELECT pg_terminate_backend(?, 10000)", backend));
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> backendOf("relay-blinking") != backend
                            && liveRelays().contains("relay-blinking"));
            sweptInGaps += watcher.liveness().sweeps() - sweeps;
        }
        // sweeps ran while its lock was free; without the grace, any one of them takes its rows
        assertTrue(sweptInGaps > 0, "the watcher swept while the peer's lock was free");
        LOG.info("{} sweeps ran while the blinking relay's lock was free", sweptInGaps);
        assertEquals(
                orders, heldBy("relay-blinking"), "a relay that took its lock again within the grace keeps its rows");
        assertEquals(0, watcher.liveness().recovered());
        assertEquals(0, fx.count("last_error_code IN ('RELAY_DIED', 'STALE_LOCK')"));

        long killedAt = System.nanoTime();
        peer.process().kill();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> heldBy("relay-blinking") == 0);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        // its last heartbeat was at most one check (500 ms) before the kill
        assertTrue(took >= grace.toMillis() - 500, "given back " + took + " ms after the kill, before the grace");
        LOG.info("a SIGKILLed relay's rows were given back {} ms after the kill (grace {} ms)", took, grace.toMillis());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> published(peer.allRows()) == peer.allRows().size());
        assertEquals(orders, watcher.liveness().recovered());
    }

    private int backendOf(String relayId) {
        Object pid = fx.db.scalar("SELECT backend_pid FROM outbox_relays WHERE relay_id = ?", relayId);
        return pid == null ? -1 : ((Number) pid).intValue();
    }

    private List<String> liveRelays() {
        return fx
                .db
                .rows(
                        "SELECT r.relay_id FROM outbox_relays r JOIN pg_locks l ON l.locktype = 'advisory'"
                                + " AND l.classid = ?::integer::oid AND l.objid = r.lock_key::oid AND l.objsubid = 2"
                                + " AND l.granted AND l.pid = r.backend_pid",
                        RelayLock.NAMESPACE)
                .stream()
                .map(r -> (String) r.get("relay_id"))
                .toList();
    }

    private static void query(Connection c, String sql) {
        try (PreparedStatement s = c.prepareStatement(sql);
                ResultSet rs = s.executeQuery()) {
            rs.next();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static HttpResponse<String> get(RelayApp relay, String path) throws Exception {
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + relay.httpPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
