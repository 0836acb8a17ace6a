package dev.outbox.api;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A bulk retry's {@code matched} and {@code retried} describe one moment, on real PostgreSQL, while
 * other transactions park and claim rows. The interleaving is made, not hoped for: a transaction of
 * the test holds {@code message_outbox} in EXCLUSIVE mode (reads pass, row locks and writes wait),
 * parks 7 more rows, and commits only once the retry waits on the table, i.e. between any read the
 * retry made before and its write. Counted and retried in two statements, the retry answered
 * matched 23, retried 30; in one statement both see the same 30 rows.
 */
class BulkRetryConsistencyIT {
    private static final String OPERATOR = "op-bulk-" + UUID.randomUUID();
    private static final TestDatabase DB = TestDatabase.get();

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB, "OUTBOX_OPS_TOKEN", OPERATOR);

    private static final String BULK =
            "{\"errorCode\":\"UNROUTABLE\",\"status\":\"PARKED\",\"reason\":\"binding restored\"}";

    @Test
    void rowsParkedWhileTheRetryRunsAreCountedAndRetriedTogether() throws Exception {
        for (int i = 0; i < 23; i++) {
            OpsApiIT.row("PARKED", "UNROUTABLE", "order.created", "before-" + i, 1L);
        }
        CompletableFuture<ApiClient.Reply> retry;
        try (Connection other = DB.dataSource().getConnection()) {
            other.setAutoCommit(false);
            try (Statement s = other.createStatement()) {
                s.execute("LOCK TABLE message_outbox IN EXCLUSIVE MODE");
            }
            insertParked(other, 7);

            retry = CompletableFuture.supplyAsync(() -> post(BULK));
            await().atMost(Duration.ofSeconds(20)).until(BulkRetryConsistencyIT::someoneWaitsForTheOutbox);
            other.commit();
        }
        ApiClient.Reply r = retry.get(20, TimeUnit.SECONDS);
        assertEquals(200, r.status(), r.body());
        JsonNode result = r.json();
        long matched = result.get("matched").asLong();
        int retried = result.get("retried").asInt();
        assertTrue(retried <= matched, "retried " + retried + " of " + matched + " matched: " + r.body());
        assertEquals(30, matched, r.body());
        assertEquals(30, retried, r.body());
        assertEquals(0, result.get("remaining").asLong(), r.body());
        assertEquals(30, result.get("ids").size());
        assertEquals(0, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PARKED'"));
        assertEquals(30L, ((Number) DB.scalar("SELECT affected FROM ops_audit")).longValue());
    }

    @Test
    void aRowAnotherTransactionHoldsIsCountedAndLeftAsRemaining() throws Exception {
        for (int i = 0; i < 5; i++) {
            OpsApiIT.row("PARKED", "UNROUTABLE", "order.created", "held-" + i, 1L);
        }
        UUID held = OpsApiIT.row("PARKED", "UNROUTABLE", "order.created", "held-by-relay", 1L);
        ApiClient.Reply r;
        try (Connection relay = DB.dataSource().getConnection()) {
            relay.setAutoCommit(false);
            try (PreparedStatement s =
                    relay.prepareStatement("SELECT id FROM message_outbox WHERE id = ? FOR UPDATE")) {
                s.setObject(1, held);
                s.executeQuery().close();
            }
            r = post(BULK);
            relay.rollback();
        }
        assertEquals(200, r.status(), r.body());
        JsonNode result = r.json();
        assertEquals(6, result.get("matched").asLong(), r.body());
        assertEquals(5, result.get("retried").asInt(), r.body());
        assertEquals(1, result.get("remaining").asLong(), "matched = retried + remaining: " + r.body());
        assertEquals("PARKED", DB.scalar("SELECT status FROM message_outbox WHERE id = ?", held));
    }

    private static ApiClient.Reply post(String body) {
        try {
            return API.client()
                    .post("/ops/outbox/retry", body, "Authorization", "Bearer " + OPERATOR, "X-Operator", "alice");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean someoneWaitsForTheOutbox() {
        return DB.count("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                        + " WHERE c.relname = 'message_outbox' AND NOT l.granted")
                > 0;
    }

    /** Rows as a relay leaves them after giving up: inserted pending, then parked, in {@code c}'s transaction. */
    private static void insertParked(Connection c, int n) throws Exception {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO message_outbox (aggregate_type, aggregate_id,"
                + " aggregate_version, message_type, exchange_name, routing_key, payload) VALUES ('order', ?, 1,"
                + " 'order.created', 'orders.events', 'order.created', '{}'::jsonb)")) {
            for (int i = 0; i < n; i++) {
                s.setString(1, "during-" + i);
                s.addBatch();
            }
            s.executeBatch();
        }
        try (PreparedStatement s = c.prepareStatement("UPDATE message_outbox SET status = 'PARKED', last_error_code ="
                + " 'UNROUTABLE', attempt_count = 5 WHERE aggregate_id LIKE 'during-%'")) {
            assertEquals(n, s.executeUpdate());
        }
    }
}
