package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.persistence.relay.RelayLock;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The claim fence against real sessions: a relay with liveness leases rows only while the session
 * the registry names as its liveness session holds its lock, decided by the claim statement itself,
 * so a relay that lost its lock claims nothing even before its own liveness thread notices.
 */
class ClaimFenceIT {
    @RegisterExtension
    static final StoreHarness STORE = new StoreHarness("claim-fence-it", 4);

    private static final TestDatabase DB = StoreHarness.DB;
    private static final String RELAY = "relay-fenced";
    private static OutboxStore store;

    @BeforeAll
    static void start() {
        store = STORE.get(OutboxStore.class);
    }

    private static RelayLock lockOf(String relayId) {
        RelayLock lock = RelayLock.connect(STORE.config(), relayId, Duration.ofSeconds(10));
        assertTrue(lock.tryAcquire());
        // what the liveness holder does once it holds the lock, before it opens its claim gate
        lock.recordIncarnation("test-host", ProcessHandle.current().pid(), Instant.now());
        return lock;
    }

    private static void insertRows(int n) {
        for (int i = 0; i < n; i++) {
            DB.update(
                    "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                            + " routing_key, payload) VALUES (?, 'order', ?, 'order.created', 'orders.events',"
                            + " 'order.created', '{}'::jsonb)",
                    UUID.randomUUID(),
                    UUID.randomUUID().toString());
        }
    }

    private static List<OutboxRecord> fencedClaim(String relayId) {
        return store.claim(relayId, 1, Set.of(), true);
    }

    @Test
    void aRelayWhoseLockSessionWasTerminatedClaimsNothingUntilItHoldsTheLockAgain() throws Exception {
        insertRows(3);
        try (RelayLock first = lockOf(RELAY)) {
            assertEquals(1, fencedClaim(RELAY).size(), "holding its lock: it claims");
            // the relay's own liveness thread has not noticed (there is none here): only the claim can tell
            assertEquals(Boolean.TRUE, DB.scalar("SELECT pg_terminate_backend(?, 10000)", first.backendPid()));
            assertEquals(List.of(), fencedClaim(RELAY), "its lock went with its session: nothing is claimed");
            assertEquals(2, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PENDING'"));
            assertEquals(
                    1,
                    store.claim(RELAY, 1, Set.of()).size(),
                    "without the fence (liveness off) the same claim leases");
        }

        int key = ((Number) DB.scalar("SELECT lock_key FROM outbox_relays WHERE relay_id = ?", RELAY)).intValue();
        try (Connection twin = DriverManager.getConnection(DB.url(), DB.user(), DB.password())) {
            // another session holds the relay's key (a second process with the same relay id, or a
            // peer's sweep for a moment): it is not the session the registry names, so still nothing
            query(twin, "SELECT pg_advisory_lock(" + RelayLock.NAMESPACE + ", " + key + ")");
            assertEquals(List.of(), fencedClaim(RELAY));
            query(twin, "SELECT pg_advisory_unlock(" + RelayLock.NAMESPACE + ", " + key + ")");
        }

        try (RelayLock again = lockOf(RELAY)) {
            assertEquals(1, fencedClaim(RELAY).size(), "its lock again: it claims again");
        }
    }

    @Test
    void aFencedClaimOfAnUnregisteredRelayClaimsNothing() {
        insertRows(1);
        assertEquals(List.of(), fencedClaim("relay-never-registered"));
        assertEquals(
                List.of(),
                store.claimSuspect("relay-never-registered", Set.of(), true).stream()
                        .toList());
    }

    private static void query(Connection c, String sql) throws Exception {
        try (PreparedStatement s = c.prepareStatement(sql);
                ResultSet rs = s.executeQuery()) {
            assertTrue(rs.next());
        }
    }
}
