package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.persistence.retention.RetentionPolicy;
import dev.outbox.persistence.retention.RetentionRun;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Retention deletes only finished history, in batches, one runner at a time. */
class RetentionIT {
    @RegisterExtension
    static final StoreHarness STORE = new StoreHarness("retention-it", 10);

    private static final TestDatabase DB = StoreHarness.DB;
    private static RetentionRun retention;
    private static final RetentionPolicy POLICY = new RetentionPolicy(
            true, Duration.ofDays(7), Duration.ofDays(14), 10, Duration.ZERO, Duration.ofMinutes(10), Duration.ZERO);

    @BeforeAll
    static void start() {
        retention = RetentionRun.forProduct(STORE.pool(), STORE.get(SqlSessionFactory.class));
    }

    /** n rows in a status, created (and finished) {@code daysAgo} days ago. */
    private static void rows(int n, String status, int daysAgo) {
        DB.update(
                "INSERT INTO message_outbox (aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                        + " payload, status, created_at, published_at, cancelled_at, locked_by, locked_at, lease_token,"
                        + " last_error_code) SELECT 'order', g::text, 't', 'orders.events', 't', '{}'::jsonb, ?,"
                        + " now() - make_interval(days => ?), CASE WHEN ? = 'PUBLISHED' THEN now() - make_interval(days => ?) END,"
                        + " CASE WHEN ? = 'CANCELLED' THEN now() - make_interval(days => ?) END,"
                        + " CASE WHEN ? = 'IN_PROGRESS' THEN 'relay' END, CASE WHEN ? = 'IN_PROGRESS' THEN now() END,"
                        + " CASE WHEN ? = 'IN_PROGRESS' THEN nextval('message_outbox_lease_token_seq') END,"
                        + " CASE WHEN ? IN ('RETRYABLE_FAILED', 'PARKED', 'CANCELLED') THEN 'OPERATOR' END"
                        + " FROM generate_series(1, ?) g",
                status,
                daysAgo,
                status,
                daysAgo,
                status,
                daysAgo,
                status,
                status,
                status,
                status,
                n);
    }

    private static long count(String status) {
        return DB.count("SELECT count(*) FROM message_outbox WHERE status = ?", status);
    }

    @Test
    void deletesOnlyFinishedRowsPastTheirAgeAndNeverUnfinishedOnesHoweverOld() throws Exception {
        rows(35, "PUBLISHED", 30);
        rows(5, "PUBLISHED", 1);
        rows(3, "CANCELLED", 30);
        rows(2, "CANCELLED", 1);
        for (String s : List.of("PENDING", "IN_PROGRESS", "RETRYABLE_FAILED", "PARKED")) {
            rows(4, s, 30);
        }

        RetentionRun.Result result = retention.run(POLICY);

        assertTrue(result.ran());
        assertEquals(35, result.deleted().get("message_outbox.published"), "in batches of 10: 10+10+10+5");
        assertEquals(3, result.deleted().get("message_outbox.cancelled"));
        assertEquals(5, count("PUBLISHED"), "recent history stays");
        assertEquals(2, count("CANCELLED"));
        for (String s : List.of("PENDING", "IN_PROGRESS", "RETRYABLE_FAILED", "PARKED")) {
            assertEquals(4, count(s), s + " rows 30 days old are untouched");
        }
    }

    @Test
    void cleansDedupeRecordsAndKeysPastTheirOwnHorizon() throws Exception {
        DB.update("INSERT INTO processed_messages (consumer_name, message_id, processed_at) VALUES"
                + " ('ledger', 'old', now() - interval '20 days'), ('ledger', 'within-replay-window',"
                + " now() - interval '10 days'), ('ledger', 'new', now())");
        DB.update("INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, response_status, response_body,"
                + " created_at, expires_at) VALUES ('', 'expired', 'h', 201, '{}', now() - interval '2 days',"
                + " now() - interval '1 day'), ('', 'live', 'h', 201, '{}', now(), now() + interval '1 day')");
        DB.update(
                "INSERT INTO consumer_side_effects (consumer_name, message_id, effect, status, started_at,"
                        + " completed_at) VALUES ('m', 'done-old', 'mail', 'DONE', now() - interval '20 days',"
                        + " now() - interval '20 days'), ('m', 'pending-old', 'mail', 'PENDING', now() - interval '20 days', NULL)");

        RetentionRun.Result result = retention.run(POLICY);

        assertEquals(1, result.deleted().get("processed_messages"));
        assertEquals(
                List.of("new", "within-replay-window"),
                DB.rows("SELECT message_id FROM processed_messages" + " ORDER BY message_id").stream()
                        .map(r -> r.get("message_id"))
                        .toList());
        assertEquals(
                List.of("live"),
                DB.rows("SELECT idempotency_key FROM idempotency_keys").stream()
                        .map(r -> r.get("idempotency_key"))
                        .toList());
        assertEquals(
                List.of("pending-old"),
                DB.rows("SELECT message_id FROM consumer_side_effects").stream()
                        .map(r -> r.get("message_id"))
                        .toList(),
                "a PENDING side effect is a repair item: kept");
    }

    @Test
    void onlyOneRunnerAtATime() throws Exception {
        rows(3, "PUBLISHED", 30);
        try (Connection other = STORE.pool().getConnection();
                PreparedStatement lock = other.prepareStatement("SELECT pg_advisory_lock(?)")) {
            lock.setLong(1, RetentionRun.LOCK_KEY);
            lock.execute();
            RetentionRun.Result skipped = retention.run(POLICY);
            assertFalse(skipped.ran());
            assertEquals(3, count("PUBLISHED"));
            try (PreparedStatement unlock = other.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                unlock.setLong(1, RetentionRun.LOCK_KEY);
                try (ResultSet rs = unlock.executeQuery()) {
                    assertTrue(rs.next() && rs.getBoolean(1));
                }
            }
        }
        assertTrue(retention.run(POLICY).ran());
        assertEquals(0, count("PUBLISHED"));
    }

    @Test
    void theDedupeHorizonMustCoverTheReplayWindow() {
        org.junit.jupiter.api.Assertions.assertThrows(
                dev.outbox.config.ConfigurationException.class,
                () -> new RetentionPolicy(
                        true,
                        Duration.ofDays(7),
                        Duration.ofDays(3),
                        10,
                        Duration.ZERO,
                        Duration.ofMinutes(1),
                        Duration.ZERO));
        assertEquals(Map.of(), new RetentionRun.Result(false, Map.of()).deleted());
    }
}
