package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.relay.RelayLock;
import dev.outbox.persistence.relay.RelayRegistry;
import dev.outbox.persistence.relay.RelayRegistryMapper;
import dev.outbox.persistence.relay.RelayView;
import dev.outbox.testkit.TestDatabase;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mybatis.guice.transactional.Transactional;

/**
 * The relay registry's recovery against real sessions and locks: a dead relay is one whose lock
 * nobody holds and whose heartbeat is older than the grace; its rows come back as suspects without
 * counting the attempt, except a suspect that the dead relay held alone: then it counts, so a row
 * that kills every relay that takes it is parked once its attempts are spent instead of crashing
 * the fleet forever, while the rows that merely shared a batch with it lose nothing.
 */
class RelayRegistryIT {
    @RegisterExtension
    static final StoreHarness STORE = new StoreHarness("relay-registry-it", 4);

    private static final TestDatabase DB = StoreHarness.DB;
    private static final int MAX_ATTEMPTS = 5;
    /** Judges a relay by its lock alone; the grace has tests of its own. */
    private static final Duration NO_GRACE = Duration.ZERO;

    private static RelayRegistry registry;
    private static InOneTransaction inOneTransaction;

    @BeforeAll
    static void start() {
        registry = STORE.get(RelayRegistry.class);
        inOneTransaction = STORE.get(InOneTransaction.class);
    }

    private static RelayLock lock(String relayId) {
        return RelayLock.connect(STORE.config(), relayId, Duration.ofSeconds(10));
    }

    /** Registers {@code relayId}, takes its lock, and ends the session as a SIGKILL would: the relay died. */
    private static void deadRelay(String relayId) {
        try (RelayLock l = lock(relayId)) {
            assertTrue(l.tryAcquire());
            // returns once the backend is gone, and its lock with it
            assertEquals(Boolean.TRUE, DB.scalar("SELECT pg_terminate_backend(?, 10000)", l.backendPid()));
        }
    }

    private static UUID leased(String relayId, int attempts, String lastErrorCode) {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload, status, locked_by, locked_at, lease_token, attempt_count, last_error_code)"
                        + " VALUES (?, 'order', ?, 'order.created', 'orders.events', 'order.created', '{}'::jsonb,"
                        + " 'IN_PROGRESS', ?, now(), nextval('message_outbox_lease_token_seq'), ?, ?)",
                id,
                UUID.randomUUID().toString(),
                relayId,
                attempts,
                lastErrorCode);
        return id;
    }

    private static Map<String, Object> row(UUID id) {
        return DB.rows("SELECT status, attempt_count, last_error_code, locked_by FROM message_outbox WHERE id = ?", id)
                .get(0);
    }

    @Test
    void onlyDeadRelaysLoseTheirRowsAndTheAttemptIsNotCounted() {
        try (RelayLock live = lock("relay-live");
                RelayLock self = lock("relay-self")) {
            assertTrue(live.tryAcquire());
            assertTrue(self.tryAcquire());
            deadRelay("relay-dead");
            UUID ofLive = leased("relay-live", 1, null);
            UUID ofSelf = leased("relay-self", 1, null);
            UUID ofDead = leased("relay-dead", 1, null);
            UUID ofDeadRetried = leased("relay-dead", 3, "NACKED");
            UUID ofUnregistered = leased("relay-before-v7", 1, null);

            assertEquals(
                    2,
                    registry.releaseDeadRelays("relay-self", NO_GRACE, 100, MAX_ATTEMPTS)
                            .size());

            // the first time in a dead relay's hands: given back for ordinary claims, not a suspect
            assertEquals(
                    Map.of("status", "PENDING", "attempt_count", 0, "last_error_code", "STALE_LOCK"),
                    withoutLock(row(ofDead)));
            assertEquals(
                    Map.of("status", "RETRYABLE_FAILED", "attempt_count", 2, "last_error_code", "STALE_LOCK"),
                    withoutLock(row(ofDeadRetried)));
            assertEquals("IN_PROGRESS", row(ofLive).get("status"), "a live relay keeps its rows");
            assertEquals("IN_PROGRESS", row(ofSelf).get("status"), "the sweeper never judges itself");
            assertEquals("IN_PROGRESS", row(ofUnregistered).get("status"), "left to the lease");
            assertEquals(2, registry.live(), "relay-live and relay-self hold their locks");
        }
    }

    @Test
    void aSuspectThatADeadRelayHeldAloneCountsTheAttemptAndIsParkedWhenTheyAreSpent() {
        deadRelay("relay-dead-1");
        deadRelay("relay-dead-2");
        UUID again = leased("relay-dead-1", 2, "RELAY_DIED");
        UUID poison = leased("relay-dead-2", MAX_ATTEMPTS, "RELAY_DIED");
        assertEquals(
                2,
                registry.releaseDeadRelays("relay-other", NO_GRACE, 100, MAX_ATTEMPTS)
                        .size());
        assertEquals(
                Map.of("status", "RETRYABLE_FAILED", "attempt_count", 2, "last_error_code", "RELAY_DIED"),
                withoutLock(row(again)));
        assertEquals(
                Map.of("status", "PARKED", "attempt_count", MAX_ATTEMPTS, "last_error_code", "RELAY_DIED"),
                withoutLock(row(poison)));
    }

    @Test
    void aDeathIsNotCountedAgainstAnyRowWhenTheDeadRelayHeldMoreThanOne() {
        deadRelay("relay-dead");
        // the row that kills relays, in a batch with a healthy one (a relay of an older version, or
        // a batch claimed before the row became a suspect): nothing says which of them it was
        UUID suspect = leased("relay-dead", MAX_ATTEMPTS, "RELAY_DIED");
        UUID healthy = leased("relay-dead", 1, null);
        assertEquals(
                2,
                registry.releaseDeadRelays("relay-other", NO_GRACE, 100, MAX_ATTEMPTS)
                        .size());
        assertEquals(
                Map.of(
                        "status",
                        "RETRYABLE_FAILED",
                        "attempt_count",
                        MAX_ATTEMPTS - 1,
                        "last_error_code",
                        "RELAY_DIED"),
                withoutLock(row(suspect)));
        assertEquals(
                Map.of("status", "PENDING", "attempt_count", 0, "last_error_code", "STALE_LOCK"),
                withoutLock(row(healthy)),
                "its first death: back to ordinary claims, its attempt given back");
    }

    @Test
    void anOrdinaryRowHeldAloneGoesBackForOrdinaryClaimsWithoutCountingTheAttempt() {
        deadRelay("relay-dead");
        UUID alone = leased("relay-dead", 1, null);
        assertEquals(
                1,
                registry.releaseDeadRelays("relay-other", NO_GRACE, 100, MAX_ATTEMPTS)
                        .size());
        assertEquals(
                Map.of("status", "PENDING", "attempt_count", 0, "last_error_code", "STALE_LOCK"),
                withoutLock(row(alone)));
    }

    @Test
    void aRowInTheHandsOfASecondDeadRelayBecomesASuspectAndOnlyThen() {
        // a crash loop: the poison row and the rows of its batch, given back once already (by a
        // death, or by an expired lease), are in hand again when the next incarnation dies
        deadRelay("relay-dead-1");
        UUID afterDeath = leased("relay-dead-1", 1, "STALE_LOCK");
        UUID afterSuspicion = leased("relay-dead-1", 1, "RELAY_DIED");
        UUID afterRetry = leased("relay-dead-1", 3, "CONNECTION_LOST");
        assertEquals(
                3,
                registry.releaseDeadRelays("relay-other", NO_GRACE, 100, MAX_ATTEMPTS)
                        .size());
        assertEquals(
                Map.of("status", "PENDING", "attempt_count", 0, "last_error_code", "RELAY_DIED"),
                withoutLock(row(afterDeath)),
                "a suspect now: published alone next time, its attempt given back");
        assertEquals(
                Map.of("status", "PENDING", "attempt_count", 0, "last_error_code", "RELAY_DIED"),
                withoutLock(row(afterSuspicion)),
                "held with others: the death is not counted against it");
        assertEquals(
                Map.of("status", "RETRYABLE_FAILED", "attempt_count", 2, "last_error_code", "STALE_LOCK"),
                withoutLock(row(afterRetry)),
                "its last failure was the broker's, not a death: its first death");
    }

    @Test
    void aRelayWhoseLockIsFreeIsDeadOnlyOnceItsHeartbeatIsOlderThanTheGrace() {
        // its session ended a moment ago, as every session does in a failover or a cut connection:
        // a live relay takes its lock again within its next check or two
        deadRelay("relay-blip");
        UUID ofBlip = leased("relay-blip", 1, null);
        Duration grace = Duration.ofSeconds(30);
        assertEquals(
                0,
                registry.releaseDeadRelays("relay-other", grace, 100, MAX_ATTEMPTS)
                        .size());
        assertEquals("IN_PROGRESS", row(ofBlip).get("status"), "within the grace: not dead yet");

        DB.update(
                "UPDATE outbox_relays SET heartbeat_at = now() - interval '31 seconds' WHERE relay_id = 'relay-blip'");
        assertEquals(
                1,
                registry.releaseDeadRelays("relay-other", grace, 100, MAX_ATTEMPTS)
                        .size());
        assertEquals("PENDING", row(ofBlip).get("status"), "silent for longer than the grace and no lock: dead");
    }

    @Test
    void aRestartedRelayTakesBackOnlyItsOwnRows() {
        try (RelayLock me = lock("relay-phoenix")) {
            assertTrue(me.tryAcquire());
            UUID mine = leased("relay-phoenix", 1, null);
            UUID other = leased("relay-other", 1, null);
            List<OutboxMapper.StaleLease> back = registry.takeBackOwn("relay-phoenix", 100, MAX_ATTEMPTS);
            assertEquals(
                    List.of(mine),
                    back.stream().map(OutboxMapper.StaleLease::id).toList());
            assertEquals("PENDING", row(mine).get("status"));
            assertEquals("IN_PROGRESS", row(other).get("status"));
        }
    }

    @Test
    void aRelayWithoutLivenessLeavesTheRegistryUnlessALiveSessionHoldsItsId() {
        deadRelay("relay-pooled");
        UUID leftByEarlierRun = leased("relay-pooled", 1, null);
        assertEquals(RelayRegistry.Unregistered.REMOVED, registry.unregister("relay-pooled", MAX_ATTEMPTS));
        assertEquals(
                Map.of("status", "PENDING", "attempt_count", 0, "last_error_code", "STALE_LOCK"),
                withoutLock(row(leftByEarlierRun)),
                "the dead registration's rows are given back, as a sweep would");
        assertEquals(0L, DB.count("SELECT count(*) FROM outbox_relays WHERE relay_id = 'relay-pooled'"));
        assertEquals(RelayRegistry.Unregistered.NOT_REGISTERED, registry.unregister("relay-pooled", MAX_ATTEMPTS));

        UUID nowLeased = leased("relay-pooled", 1, null);
        deadRelay("relay-dead");
        assertEquals(
                0,
                registry.releaseDeadRelays("relay-self", NO_GRACE, 100, MAX_ATTEMPTS)
                        .size(),
                "relay-dead holds nothing, and relay-pooled is no longer a sweep's business");
        assertEquals("IN_PROGRESS", row(nowLeased).get("status"));

        try (RelayLock twin = lock("relay-twin")) {
            assertTrue(twin.tryAcquire());
            UUID ofTwin = leased("relay-twin", 1, null);
            assertEquals(RelayRegistry.Unregistered.LOCK_HELD, registry.unregister("relay-twin", MAX_ATTEMPTS));
            assertEquals("IN_PROGRESS", row(ofTwin).get("status"));
            assertEquals(1L, DB.count("SELECT count(*) FROM outbox_relays WHERE relay_id = 'relay-twin'"));
        }
    }

    /** Runs the sweep's first statement and looks at the locks while its transaction is still open. */
    public static class InOneTransaction {
        private final RelayRegistryMapper mapper;

        @Inject
        InOneTransaction(RelayRegistryMapper mapper) {
            this.mapper = mapper;
        }

        @Transactional
        public <T> T lockDeadRelaysThen(String self, List<String> dead, Supplier<T> whileLocked) {
            dead.addAll(mapper.lockDeadRelays(self, RelayLock.NAMESPACE, 0));
            return whileLocked.get();
        }
    }

    @Test
    void aSweepLocksOnlyDeadRelaysThatHoldRowsSoIdleOnesNeverLookAlive() {
        deadRelay("relay-dead");
        UUID ofDead = leased("relay-dead", 1, null);
        List<String> idle = java.util.stream.IntStream.rangeClosed(1, 20)
                .mapToObj(i -> "relay-idle-" + i)
                .toList();
        idle.forEach(RelayRegistryIT::deadRelay);
        // the plan a database with statistics gets (autovacuum analyzes these tables soon enough)
        DB.execute("ANALYZE outbox_relays, message_outbox");
        Map<Object, Object> relayByKey = DB.rows("SELECT relay_id, lock_key FROM outbox_relays").stream()
                .collect(Collectors.toMap(r -> ((Number) r.get("lock_key")).longValue(), r -> r.get("relay_id")));
        List<String> dead = new java.util.ArrayList<>();

        Map<String, List<Object>> duringSweep = inOneTransaction.lockDeadRelaysThen(
                "relay-self",
                dead,
                () -> Map.of(
                        "locked",
                                DB
                                        .rows(
                                                "SELECT objid::bigint AS key FROM pg_locks WHERE locktype = 'advisory' AND granted"
                                                        + " AND classid = ?::integer::oid"
                                                        // pg_locks is the whole server's: another database's relays are
                                                        // not ours
                                                        + " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                                                        + " ORDER BY 1",
                                                RelayLock.NAMESPACE)
                                        .stream()
                                        .map(r -> relayByKey.get(((Number) r.get("key")).longValue()))
                                        .toList(),
                        "alive",
                                registry.list().stream()
                                        .filter(RelayView::alive)
                                        .map(v -> (Object) v.relayId())
                                        .toList()));

        assertEquals(List.of("relay-dead"), dead);
        assertEquals(
                List.of("relay-dead"),
                duringSweep.get("locked"),
                "only the dead relay whose rows are given back is locked; idle dead relays are not touched");
        assertEquals(List.of("relay-dead"), duringSweep.get("alive"), "idle dead relays never look alive");
        assertEquals("IN_PROGRESS", row(ofDead).get("status"), "only the first statement ran");
        assertEquals(
                idle.size() + 1,
                registry.list().stream().filter(v -> !v.alive()).count());
    }

    private static Map<String, Object> withoutLock(Map<String, Object> row) {
        assertEquals(null, row.get("locked_by"));
        return Map.of(
                "status",
                row.get("status"),
                "attempt_count",
                row.get("attempt_count"),
                "last_error_code",
                row.get("last_error_code"));
    }
}
