package dev.outbox.api;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.testkit.TestDatabase;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/** The operator API on a real server and database: auth, search, every repair and its audit trail. */
class OpsApiIT {
    static final String OPERATOR = "op-secret-" + UUID.randomUUID();
    static final String READER = "read-secret-" + UUID.randomUUID();
    private static final TestDatabase DB = TestDatabase.get();

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB, "OUTBOX_OPS_TOKEN", OPERATOR, "OUTBOX_OPS_READ_TOKEN", READER);

    static UUID row(String status, String errorCode, String type, String aggregate, Long version) {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload, correlation_id, tenant_id) VALUES (?, 'order', ?, ?, ?,"
                        + " 'orders.events', ?, '{\"secret\":\"card-4242\"}'::jsonb, 'corr-' || ?, 'tenant-a')",
                id,
                aggregate,
                version,
                type,
                type,
                aggregate);
        switch (status) {
            case "PENDING" -> {}
            case "PUBLISHED" ->
                DB.update(
                        "UPDATE message_outbox SET status = 'PUBLISHED', published_at = now(),"
                                + " attempt_count = 1 WHERE id = ?",
                        id);
            case "IN_PROGRESS" ->
                DB.update(
                        "UPDATE message_outbox SET status = 'IN_PROGRESS', locked_by = 'relay-x',"
                                + " locked_at = now() - interval '1 hour', lease_token = nextval('message_outbox_lease_token_seq'),"
                                + " attempt_count = 1 WHERE id = ?",
                        id);
            default ->
                DB.update(
                        "UPDATE message_outbox SET status = ?, last_error_code = ?, last_error_message = 'why',"
                                + " attempt_count = 5 WHERE id = ?",
                        status,
                        errorCode,
                        id);
        }
        return id;
    }

    private static String[] op() {
        return new String[] {"Authorization", "Bearer " + OPERATOR, "X-Operator", "alice"};
    }

    private static String[] reader() {
        return new String[] {"Authorization", "Bearer " + READER};
    }

    @Test
    void opsEndpointsNeedAValidTokenAndReadOnlyCannotWrite() throws Exception {
        UUID id = row("PARKED", "UNROUTABLE", "order.created", "a1", 1L);
        ApiClient.Reply none = API.client().get("/ops/outbox");
        assertEquals(401, none.status());
        assertEquals("Bearer realm=\"outbox-ops\"", none.header("WWW-Authenticate"));
        assertEquals(
                401,
                API.client().get("/ops/outbox", "Authorization", "Bearer nope").status());
        assertEquals(
                401,
                API.client()
                        .get("/ops/outbox", "Authorization", "Basic " + OPERATOR)
                        .status());
        assertEquals(200, API.client().get("/ops/outbox", reader()).status());
        ApiClient.Reply forbidden = API.client().post("/ops/outbox/" + id + "/retry", "{}", reader());
        assertEquals(403, forbidden.status());
        assertEquals("PARKED", DB.scalar("SELECT status FROM message_outbox WHERE id = ?", id));
        assertEquals(
                200,
                API.client().post("/ops/outbox/" + id + "/retry", "{}", op()).status());
    }

    /**
     * Tokens never reach a log line, at any level, from any logger: this project's at ALL, and the
     * JUL loggers Jersey and Grizzly write to (captured by a JUL handler at ALL on the root, before
     * any bridge or level could drop a record). The capture is proven at the end by logging the
     * token once on purpose through each route; those two lines, and nothing else, must be found.
     */
    @Test
    void tokensNeverReachTheLogs() throws Exception {
        UUID id = row("PARKED", "UNROUTABLE", "order.created", "a1", 1L);
        List<String> lines;
        try (LogCapture capture = LogCapture.everything()) {
            API.client().post("/ops/outbox/" + id + "/retry", "{\"reason\":\"fixed binding\"}", op());
            API.client().get("/ops/outbox", "Authorization", "Bearer " + OPERATOR + "-wrong");
            API.client().post("/ops/outbox/" + id + "/cancel", "{}", reader());
            API.client().get("/ops/outbox?limit=abc", reader());
            RawHttp raw = new RawHttp(API.port());
            for (RawHttp.Request r : List.of(
                    new RawHttp.Request("GET", "/ops/outbox?x=%ZZ").header("Authorization", "Bearer " + OPERATOR),
                    new RawHttp.Request("POST", "/ops/outbox/" + id + "/retry")
                            .header("Authorization", "Bearer " + OPERATOR)
                            .header("Content-Type", ";;")
                            .body("{}"),
                    new RawHttp.Request("POST", "/ops/outbox/" + id + "/retry")
                            .header("Authorization", "Bearer " + OPERATOR)
                            .header("Content-Type", "application/json")
                            .header("Content-Length", "99")
                            .body("{\"reason\":"),
                    new RawHttp.Request("GET", "/ops/outbox")
                            .header("Authorization", "Bearer " + OPERATOR)
                            .header("X-Pad", "p".repeat(9_000)),
                    new RawHttp.Request("GET", "/ops/outbox").header("Authorization", "Bearer " + READER + "\u0001"))) {
                raw.send(r);
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> capture.loggers().stream().anyMatch(n -> n.startsWith("org.glassfish.grizzly"))
                            && capture.loggers().stream().anyMatch(n -> n.startsWith("org.glassfish.jersey"))
                            && capture.loggers().stream().anyMatch(n -> n.startsWith("dev.outbox")));

            // the proof that the capture sees both routes at their lowest levels
            java.util.logging.Logger.getLogger("org.glassfish.grizzly.http.server")
                    .finest("canary " + OPERATOR);
            LoggerFactory.getLogger("dev.outbox.api.ops.OpsAuthFilter").trace("canary {}", OPERATOR);
            lines = capture.lines();
        }
        List<String> leaked = lines.stream()
                .filter(l -> l.contains(OPERATOR) || l.contains(READER))
                .toList();
        // the JUL canary arrives twice: from the JUL capture, and bridged into SLF4J as in production
        assertEquals(
                new java.util.TreeSet<>(List.of(
                        "JUL FINEST org.glassfish.grizzly.http.server canary " + OPERATOR,
                        "SLF4J TRACE org.glassfish.grizzly.http.server canary " + OPERATOR,
                        "SLF4J TRACE dev.outbox.api.ops.OpsAuthFilter canary " + OPERATOR)),
                new java.util.TreeSet<>(
                        leaked.stream().map(l -> l.replaceAll(" \\{.*\\}$", "")).toList()),
                "only the lines logged on purpose hold a token");
        assertTrue(lines.size() > 50, "the capture saw the requests at every level: " + lines.size() + " lines");
    }

    @Test
    void searchFiltersAndPagesByKeyset() throws Exception {
        Set<String> all = new HashSet<>();
        for (int i = 0; i < 7; i++) {
            all.add(row("PARKED", "UNROUTABLE", "order.created", "p" + i, 1L).toString());
        }
        row("PUBLISHED", null, "order.created", "pub", 1L);
        row("PARKED", "PAYLOAD_INVALID", "payment.captured", "other", 1L);

        Set<String> seen = new HashSet<>();
        String after = null;
        int pages = 0;
        do {
            String q =
                    "/ops/outbox?status=PARKED&errorCode=UNROUTABLE&limit=3" + (after == null ? "" : "&after=" + after);
            JsonNode page = API.client().get(q, reader()).json();
            page.get("items").forEach(r -> {
                assertEquals("PARKED", r.get("status").asText());
                assertTrue(seen.add(r.get("id").asText()), "no row twice across pages");
            });
            after = page.hasNonNull("next") ? page.get("next").asText() : null;
            pages++;
        } while (after != null);
        assertEquals(all, seen);
        assertEquals(3, pages);

        JsonNode byCorrelation =
                API.client().get("/ops/outbox?correlationId=corr-p3", reader()).json();
        assertEquals(1, byCorrelation.get("items").size());
        assertEquals(
                1,
                API.client()
                        .get("/ops/outbox?tenantId=tenant-a&messageType=payment.captured", reader())
                        .json()
                        .get("items")
                        .size());
    }

    @Test
    void filterValuesThatLookLikeSqlAreJustValues() throws Exception {
        row("PARKED", "UNROUTABLE", "order.created", "x", 1L);
        String[] attacks = {
            "' OR '1'='1",
            "x'; DELETE FROM message_outbox; --",
            "\" OR 1=1 --",
            "order.created' UNION SELECT * FROM ops_audit --"
        };
        for (String attack : attacks) {
            String enc = URLEncoder.encode(attack, StandardCharsets.UTF_8);
            ApiClient.Reply r = API.client()
                    .get("/ops/outbox?messageType=" + enc + "&aggregateId=" + enc + "&correlationId=" + enc, reader());
            assertEquals(200, r.status(), r.body());
            assertEquals(0, r.json().get("items").size(), attack);
        }
        ApiClient.Reply badEnum = API.client()
                .get("/ops/outbox?status=" + URLEncoder.encode("PARKED' OR 1=1", StandardCharsets.UTF_8), reader());
        assertEquals(400, badEnum.status());
        assertEquals(1, DB.count("SELECT count(*) FROM message_outbox"), "nothing was deleted");
    }

    @Test
    void detailShowsAttemptsLastErrorLeaseAndWhatBlocksTheRow() throws Exception {
        UUID v1 = row("PARKED", "UNROUTABLE", "order.created", "agg", 1L);
        UUID v2 = row("PENDING", null, "payment.captured", "agg", 2L);
        JsonNode d = API.client().get("/ops/outbox/" + v2, op()).json();
        assertEquals(v1.toString(), d.get("blockedBy").get("id").asText());
        assertEquals("UNROUTABLE", d.get("blockedBy").get("lastErrorCode").asText());
        assertEquals("card-4242", d.get("payload").get("secret").asText(), "the operator sees the payload");

        JsonNode parked = API.client().get("/ops/outbox/" + v1, reader()).json();
        assertEquals(5, parked.get("attemptCount").asInt());
        assertEquals("UNROUTABLE", parked.get("lastErrorCode").asText());
        assertEquals("why", parked.get("lastErrorMessage").asText());
        assertNull(parked.get("payload"), "the read-only role does not");
        assertNotNull(parked.get("payloadSha256"));

        UUID leased = row("IN_PROGRESS", null, "order.created", "l", 1L);
        JsonNode lease =
                API.client().get("/ops/outbox/" + leased, reader()).json().get("lease");
        assertEquals("relay-x", lease.get("lockedBy").asText());
        assertNotNull(lease.get("expiresAt"));
        assertEquals(
                404,
                API.client().get("/ops/outbox/" + UUID.randomUUID(), reader()).status());
        assertEquals(400, API.client().get("/ops/outbox/not-a-uuid", reader()).status());
    }

    @Test
    void retryCancelReplayAndReleaseChangeOnlyWhatTheyMayAndAreAudited() throws Exception {
        UUID parked = row("PARKED", "UNROUTABLE", "order.created", "r1", 1L);
        UUID published = row("PUBLISHED", null, "order.created", "r2", 1L);
        UUID pending = row("PENDING", null, "order.created", "r3", 1L);
        UUID leased = row("IN_PROGRESS", null, "order.created", "r4", 1L);

        assertEquals(
                200,
                API.client()
                        .post("/ops/outbox/" + parked + "/retry", "{\"reason\":\"bound the queue\"}", op())
                        .status());
        assertEquals(List.of("PENDING", "0"), state(parked));
        assertEquals(
                409,
                API.client()
                        .post("/ops/outbox/" + published + "/retry", "{}", op())
                        .status());

        assertEquals(
                400,
                API.client()
                        .post("/ops/outbox/" + pending + "/cancel", "{}", op())
                        .status(),
                "a reason is required");
        assertEquals(
                200,
                API.client()
                        .post("/ops/outbox/" + pending + "/cancel", "{\"reason\":\"sent by hand\"}", op())
                        .status());
        assertEquals("CANCELLED", state(pending).get(0));
        assertEquals(
                409,
                API.client()
                        .post("/ops/outbox/" + published + "/cancel", "{\"reason\":\"x\"}", op())
                        .status());

        assertEquals(
                200,
                API.client()
                        .post("/ops/outbox/" + published + "/replay", "{}", op())
                        .status());
        assertEquals("PENDING", state(published).get(0), "published again, same id");

        assertEquals(
                200,
                API.client()
                        .post("/ops/outbox/" + leased + "/release", "{\"reason\":\"relay-x is gone\"}", op())
                        .status());
        assertEquals(List.of("RETRYABLE_FAILED", "1"), state(leased));
        assertNull(DB.scalar("SELECT locked_by FROM message_outbox WHERE id = ?", leased));

        JsonNode audit = API.client().get("/ops/audit", reader()).json().get("items");
        List<String> actions = new ArrayList<>();
        audit.forEach(a -> actions.add(a.get("action").asText()));
        assertEquals(
                List.of("RELEASE_LEASE", "REPLAY", "CANCEL", "RETRY"), actions, "newest first, refusals not recorded");
        JsonNode retry = audit.get(3);
        assertEquals("alice", retry.get("actor").asText());
        assertEquals("operator", retry.get("role").asText());
        assertEquals("bound the queue", retry.get("reason").asText());
        assertEquals(parked.toString(), retry.get("messageIds").get(0).asText());
        assertEquals(
                1,
                API.client()
                        .get("/ops/audit?messageId=" + pending, reader())
                        .json()
                        .get("items")
                        .size());
    }

    @Test
    void bulkRetryCountsFirstThenRetriesInChunks() throws Exception {
        for (int i = 0; i < 5; i++) {
            row("PARKED", "UNROUTABLE", "order.created", "b" + i, 1L);
        }
        row("PARKED", "PAYLOAD_INVALID", "order.created", "keep", 1L);
        row("RETRYABLE_FAILED", "UNROUTABLE", "order.created", "also", 1L);

        assertEquals(400, API.client().post("/ops/outbox/retry", "{}", op()).status(), "a filter is required");
        JsonNode dry = API.client()
                .post(
                        "/ops/outbox/retry",
                        "{\"errorCode\":\"UNROUTABLE\",\"status\":\"PARKED\"," + "\"dryRun\":true}",
                        op())
                .json();
        assertEquals(5, dry.get("matched").asLong());
        assertEquals(
                5,
                DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PARKED'"
                        + " AND last_error_code = 'UNROUTABLE'"),
                "a dry run changes nothing");

        JsonNode first = API.client()
                .post(
                        "/ops/outbox/retry",
                        "{\"errorCode\":\"UNROUTABLE\",\"status\":\"PARKED\","
                                + "\"limit\":3,\"reason\":\"binding restored\"}",
                        op())
                .json();
        assertEquals(3, first.get("retried").asInt());
        assertEquals(2, first.get("remaining").asLong());
        JsonNode second = API.client()
                .post(
                        "/ops/outbox/retry",
                        "{\"errorCode\":\"UNROUTABLE\",\"status\":\"PARKED\"," + "\"limit\":3}",
                        op())
                .json();
        assertEquals(2, second.get("retried").asInt());
        assertEquals(1, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PARKED'"));
        assertEquals(1, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'RETRYABLE_FAILED'"));
        assertEquals(2, DB.count("SELECT count(*) FROM ops_audit WHERE action = 'BULK_RETRY'"));
        assertEquals("UNROUTABLE", DB.scalar("SELECT filter->>'errorCode' FROM ops_audit LIMIT 1"));
    }

    @Test
    void replayingAnAggregateRepublishesAllItsPublishedRows() throws Exception {
        row("PUBLISHED", null, "order.created", "agg", 1L);
        row("PUBLISHED", null, "payment.captured", "agg", 2L);
        row("PENDING", null, "order.cancelled", "agg", 3L);
        JsonNode r = API.client()
                .post(
                        "/ops/outbox/replay-aggregate",
                        "{\"aggregateType\":\"order\",\"aggregateId\":\"agg\"," + "\"reason\":\"ledger rebuilt\"}",
                        op())
                .json();
        assertEquals(2, r.get("affected").asInt());
        assertEquals(3, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PENDING'"));
    }

    @Test
    void statsAndReconcileAnswerTheThreeAmQuestions() throws Exception {
        row("PARKED", "UNROUTABLE", "order.created", "s1", 1L);
        row("PENDING", null, "payment.captured", "s1", 2L);
        row("PARKED", "PAYLOAD_INVALID", "order.created", "s2", 1L);
        row("IN_PROGRESS", null, "order.created", "s3", 1L);
        row("PUBLISHED", null, "order.created", "s4", 1L);
        DB.update("UPDATE message_outbox SET created_at = now() - interval '10 minutes' WHERE aggregate_id = 's1'"
                + " AND aggregate_version = 2");
        JsonNode stats = API.client().get("/ops/outbox/stats", reader()).json();
        assertEquals(1, stats.get("counts").get("PENDING").asLong());
        assertEquals(1, stats.get("counts").get("IN_PROGRESS").asLong());
        assertEquals(2, stats.get("counts").get("PARKED").asLong());
        assertEquals(1, stats.get("publishedLastHour").asLong());
        JsonNode perMinute = stats.get("publishedPerMinute");
        assertEquals(60, perMinute.size(), "one count per minute of the last hour");
        long inAll = 0;
        for (JsonNode n : perMinute) {
            inAll += n.asLong();
        }
        assertEquals(1, inAll, "the minutes add up to the hour: " + perMinute);
        assertEquals(1, stats.get("parkedByErrorCode").get("UNROUTABLE").asLong());
        assertTrue(stats.get("oldestPendingAgeSeconds").asDouble() >= 599);
        assertEquals(1, stats.get("blockedAggregates").asLong());

        // an order whose latest version has no outbox row: written around the outbox
        UUID orderId = UUID.randomUUID();
        DB.update(
                "INSERT INTO orders (id, customer_id, status, version, currency, total, created_at, updated_at)"
                        + " VALUES (?, 'c', 'PLACED', 1, 'EUR', 10, now(), now())",
                orderId);
        JsonNode rec = API.client().get("/ops/outbox/reconcile", reader()).json();
        assertFalse(rec.get("ok").asBoolean());
        assertEquals(
                orderId.toString(),
                rec.get("ordersMissingEvents").get(0).get("orderId").asText());
        assertEquals("relay-x", rec.get("expiredLeases").get(0).get("lockedBy").asText());
        assertEquals(
                "s1", rec.get("blockedAggregates").get(0).get("aggregateId").asText());
        assertEquals(1, rec.get("blockedAggregates").get(0).get("waiting").asLong());
        assertEquals(0, rec.get("waitingConsumers").size());

        // a consumer holding v3 for 10 minutes while v2 never came (it was cancelled, say)
        DB.update("INSERT INTO consumer_aggregate_positions (consumer_name, aggregate_type, aggregate_id,"
                + " last_version) VALUES ('ledger', 'order', 'w', 1)");
        DB.update("INSERT INTO consumer_held_messages (consumer_name, aggregate_type, aggregate_id, aggregate_version,"
                + " message_id, message_type, message_version, body, held_at) VALUES ('ledger', 'order', 'w', 3, 'm3',"
                + " 'order.cancelled', 1, '\\x7b7d'::bytea, now() - interval '10 minutes')");
        JsonNode waiting = API.client()
                .get("/ops/outbox/reconcile", reader())
                .json()
                .get("waitingConsumers")
                .get(0);
        assertEquals("ledger", waiting.get("consumerName").asText());
        assertEquals(2, waiting.get("waitingForVersion").asLong());
        assertEquals(1, waiting.get("held").asLong());
    }

    /** A note is kept beside the row's repairs whatever its status, and changes nothing about the row. */
    @Test
    void aNoteOnAnyRowIsAuditedAndChangesNothing() throws Exception {
        for (String status :
                List.of("PENDING", "IN_PROGRESS", "PUBLISHED", "RETRYABLE_FAILED", "PARKED", "CANCELLED")) {
            // the error code each status carries in a row the relay wrote; a row is cancelled the way an operator does
            String code = Map.of("PARKED", "UNROUTABLE", "RETRYABLE_FAILED", "CONNECTION_LOST")
                    .get(status);
            UUID id = row(status.equals("CANCELLED") ? "PENDING" : status, code, "order.created", "n-" + status, 1L);
            if (status.equals("CANCELLED")) {
                assertEquals(
                        200,
                        API.client()
                                .post("/ops/outbox/" + id + "/cancel", "{\"reason\":\"sent by hand\"}", op())
                                .status());
            }
            List<String> before = state(id);
            Object lockedBy = DB.scalar("SELECT locked_by FROM message_outbox WHERE id = ?", id);
            JsonNode done = API.client()
                    .post("/ops/outbox/" + id + "/note", "{\"reason\":\"  held for billing, ticket 4711 \"}", op())
                    .json();
            assertEquals("NOTE", done.get("action").asText(), status);
            assertEquals(0, done.get("affected").asInt(), "nothing changed: " + status);
            assertEquals(before, state(id), "the row is as it was: " + status);
            assertEquals(lockedBy, DB.scalar("SELECT locked_by FROM message_outbox WHERE id = ?", id), status);
            JsonNode entry = API.client()
                    .get("/ops/audit?messageId=" + id, reader())
                    .json()
                    .get("items")
                    .get(0);
            assertEquals("NOTE", entry.get("action").asText());
            assertEquals("held for billing, ticket 4711", entry.get("reason").asText(), "kept without the padding");
            assertEquals("alice", entry.get("actor").asText());
            assertEquals(0, entry.get("affected").asInt());
        }
    }

    @Test
    void aNoteMustSaySomethingNameARowAndComeFromTheOperator() throws Exception {
        UUID id = row("PARKED", "UNROUTABLE", "order.created", "n-refused", 1L);
        long audits = DB.count("SELECT count(*) FROM ops_audit");
        for (String body : List.of("{}", "{\"reason\":null}", "{\"reason\":\"\"}", "{\"reason\":\" \\t\\n \"}")) {
            ApiClient.Reply r = API.client().post("/ops/outbox/" + id + "/note", body, op());
            assertEquals(400, r.status(), body);
            assertEquals("validation_failed", r.json().get("code").asText(), body);
        }
        ApiClient.Reply unknown =
                API.client().post("/ops/outbox/" + UUID.randomUUID() + "/note", "{\"reason\":\"x\"}", op());
        assertEquals(404, unknown.status());
        assertEquals(
                403,
                API.client()
                        .post("/ops/outbox/" + id + "/note", "{\"reason\":\"x\"}", reader())
                        .status(),
                "the read-only token may not write, not even a note");
        assertEquals(audits, DB.count("SELECT count(*) FROM ops_audit"), "a refused note writes nothing");
    }

    private static List<String> state(UUID id) {
        Map<String, Object> r = DB.rows("SELECT status, attempt_count FROM message_outbox WHERE id = ?", id)
                .get(0);
        return List.of((String) r.get("status"), String.valueOf(r.get("attempt_count")));
    }
}
