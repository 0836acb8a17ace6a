package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.api.ops.OpsService;
import dev.outbox.testkit.TestDatabase;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the console's overview and its actions rest on: {@code GET /ops/outbox/stats} counts every
 * status (the finished ones exactly while few, and as a labelled estimate when many), and every
 * action answers with the audit entry it wrote, so a caller never mistakes another operator's
 * entry for its own.
 */
class OpsStatsAndAuditIT {
    static final String OPERATOR = "op-secret-" + UUID.randomUUID();
    private static final TestDatabase DB = TestDatabase.get();

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB, "OUTBOX_OPS_TOKEN", OPERATOR);

    enum Status {
        PENDING,
        IN_PROGRESS,
        PUBLISHED,
        RETRYABLE_FAILED,
        PARKED,
        CANCELLED
    }

    private static String[] as(String operator) {
        return new String[] {"Authorization", "Bearer " + OPERATOR, "X-Operator", operator};
    }

    /** {@code n} rows in one status, in one statement; each status gets the columns it implies. */
    private static void rows(Status status, int n, String aggregate) {
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload, status, attempt_count, published_at, cancelled_at,"
                        + " last_error_code, locked_by, locked_at, lease_token)"
                        + " SELECT gen_random_uuid(), 'stats', ? || '-' || g, 'stats.test', 'orders.events',"
                        + " 'stats.test', '{}'::jsonb, ?, 1,"
                        + " CASE WHEN ? = 'PUBLISHED' THEN now() END, CASE WHEN ? = 'CANCELLED' THEN now() END,"
                        + " CASE WHEN ? IN ('PARKED', 'RETRYABLE_FAILED', 'CANCELLED') THEN 'OPERATOR' END,"
                        + " CASE WHEN ? = 'IN_PROGRESS' THEN 'relay-x' END, CASE WHEN ? = 'IN_PROGRESS' THEN now() END,"
                        + " CASE WHEN ? = 'IN_PROGRESS' THEN nextval('message_outbox_lease_token_seq') END"
                        + " FROM generate_series(1, ?) g",
                aggregate,
                status.name(),
                status.name(),
                status.name(),
                status.name(),
                status.name(),
                status.name(),
                status.name(),
                n);
    }

    private static JsonNode stats() throws Exception {
        ApiClient.Reply r = API.client().get("/ops/outbox/stats", as("stats-reader"));
        assertEquals(200, r.status(), r.body());
        return r.json();
    }

    /**
     * Generated tables: 25 mixes of rows over all six statuses (0 to 40 of each, seeded, the seed
     * printed), each counted by the endpoint exactly as the database counts them. Before this, the
     * answer had no PUBLISHED or CANCELLED at all and the console showed 0 for both.
     */
    @Test
    void everyStatusIsCountedAndTheFinishedOnesExactlyWhileFew() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int mix = 0; mix < 25; mix++) {
            DB.reset();
            Map<Status, Integer> made = new EnumMap<>(Status.class);
            for (Status s : Status.values()) {
                int n = random.nextInt(5) == 0 ? 0 : random.nextInt(41);
                made.put(s, n);
                if (n > 0) {
                    rows(s, n, s.name().toLowerCase() + "-" + mix);
                }
            }
            String context = "seed " + seed + ", mix " + mix + ": " + made;
            JsonNode stats = stats();
            for (Status s : List.of(Status.PENDING, Status.IN_PROGRESS, Status.RETRYABLE_FAILED, Status.PARKED)) {
                assertEquals((int) made.get(s), stats.at("/counts/" + s).asInt(-1), s + ", " + context);
            }
            for (Status s : List.of(Status.PUBLISHED, Status.CANCELLED)) {
                JsonNode f = stats.at("/finished/" + s);
                assertEquals((int) made.get(s), f.path("count").asInt(-1), s + ", " + context);
                assertTrue(f.path("exact").asBoolean(false), s + " is exact while few, " + context);
            }
        }
    }

    /**
     * Past the exact limit the count is PostgreSQL's estimate and says so; it is never below what
     * was found, and after ANALYZE it is close to the truth.
     */
    @Test
    void manyPublishedRowsAreEstimatedAndSaySo() throws Exception {
        int many = OpsService.EXACT_FINISHED_UP_TO + 1_500;
        rows(Status.PUBLISHED, many, "many");
        rows(Status.CANCELLED, 3, "few");
        JsonNode before = stats().at("/finished/PUBLISHED");
        assertFalse(before.path("exact").asBoolean(true), before.toString());
        assertTrue(
                before.path("count").asLong() > OpsService.EXACT_FINISHED_UP_TO,
                "never below what was found: " + before);

        DB.execute("ANALYZE message_outbox");
        JsonNode after = stats();
        JsonNode published = after.at("/finished/PUBLISHED");
        assertFalse(published.path("exact").asBoolean(true), published.toString());
        long estimate = published.path("count").asLong();
        assertTrue(Math.abs(estimate - many) <= many / 20, "within 5 % of " + many + ": " + published);
        assertEquals(3, after.at("/finished/CANCELLED/count").asInt(), after.toString());
        assertTrue(after.at("/finished/CANCELLED/exact").asBoolean(false));
    }

    /**
     * Two operators retrying and replaying at the same moment, 20 actions each: every answer carries
     * the entry its own action wrote (its actor, action and ids, and the id the audit table holds
     * for exactly that), never the other's, which a "latest entry" lookup would return.
     */
    @Test
    void everyActionAnswersWithTheAuditEntryItWrote() throws Exception {
        int each = 20;
        List<UUID> parked = new ArrayList<>();
        List<UUID> published = new ArrayList<>();
        for (int i = 0; i < each; i++) {
            parked.add(row("PARKED", "p-" + i));
            published.add(row("PUBLISHED", "r-" + i));
        }
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Callable<List<JsonNode>> retries = () -> act(go, "alice", "retry", parked);
            Callable<List<JsonNode>> replays = () -> act(go, "bob", "replay", published);
            Future<List<JsonNode>> a = pool.submit(retries);
            Future<List<JsonNode>> b = pool.submit(replays);
            go.countDown();
            check(a.get(), "alice", "RETRY", parked);
            check(b.get(), "bob", "REPLAY", published);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(2L * each, DB.count("SELECT count(*) FROM ops_audit"));
    }

    @Test
    void aBulkRetryAnswersWithItsEntryAndADryRunWithNone() throws Exception {
        for (int i = 0; i < 3; i++) {
            row("PARKED", "b-" + i);
        }
        String filter = "{\"status\":\"PARKED\",\"errorCode\":\"NACKED\",\"dryRun\":%s,\"reason\":\"alarm cleared\"}";
        ApiClient.Reply dry = API.client().post("/ops/outbox/retry", filter.formatted("true"), as("carol"));
        assertEquals(200, dry.status(), dry.body());
        assertNull(dry.json().get("audit"), "a dry run writes no entry: " + dry.body());
        DB.update("INSERT INTO ops_audit (actor, role, action, affected) VALUES ('dave', 'operator', 'CANCEL', 0)");

        ApiClient.Reply done = API.client().post("/ops/outbox/retry", filter.formatted("false"), as("carol"));
        assertEquals(200, done.status(), done.body());
        JsonNode audit = done.json().get("audit");
        assertEquals("carol", audit.path("actor").asText());
        assertEquals("BULK_RETRY", audit.path("action").asText());
        assertEquals(3, audit.path("affected").asInt());
        assertEquals("alarm cleared", audit.path("reason").asText());
        assertEquals("NACKED", audit.at("/filter/errorCode").asText());
        assertEquals(
                DB.scalar("SELECT id FROM ops_audit WHERE action = 'BULK_RETRY'"),
                audit.path("id").asLong());
    }

    private static UUID row(String status, String aggregate) {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload, status, attempt_count, published_at, last_error_code)"
                        + " VALUES (?, 'audit', ?, 'audit.test', 'orders.events', 'audit.test', '{}'::jsonb, ?, 1,"
                        + " CASE WHEN ? = 'PUBLISHED' THEN now() END, CASE WHEN ? = 'PARKED' THEN 'NACKED' END)",
                id,
                aggregate,
                status,
                status,
                status);
        return id;
    }

    private static List<JsonNode> act(CountDownLatch go, String operator, String action, List<UUID> ids)
            throws Exception {
        go.await();
        List<JsonNode> answers = new ArrayList<>();
        for (UUID id : ids) {
            ApiClient.Reply r = API.client()
                    .post("/ops/outbox/" + id + "/" + action, "{\"reason\":\"" + operator + "\"}", as(operator));
            assertEquals(200, r.status(), r.body());
            answers.add(r.json());
        }
        return answers;
    }

    private static void check(List<JsonNode> answers, String operator, String action, List<UUID> ids) {
        for (int i = 0; i < ids.size(); i++) {
            JsonNode audit = answers.get(i).get("audit");
            String context = operator + " " + action + " " + ids.get(i) + ": " + answers.get(i);
            assertEquals(operator, audit.path("actor").asText(), context);
            assertEquals(action, audit.path("action").asText(), context);
            assertEquals(ids.get(i).toString(), audit.at("/messageIds/0").asText(), context);
            assertEquals(operator, audit.path("reason").asText(), context);
            assertEquals(
                    List.of(Map.of("actor", operator, "action", action)),
                    DB.rows(
                            "SELECT actor, action FROM ops_audit WHERE id = ? AND message_ids = ARRAY[?]::uuid[]",
                            audit.path("id").asLong(),
                            ids.get(i)),
                    "the entry with the answer's id is this action's: " + context);
        }
    }
}
