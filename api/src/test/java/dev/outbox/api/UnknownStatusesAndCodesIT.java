package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.testkit.TestDatabase;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Old code never chokes on new data (issue 42). In a rolling upgrade a newer version writes a
 * status or an error code this one has no name for ({@code ARCHIVED}, {@code FUTURE_727}): the
 * operator API shows such a row with its text as stored, finds it by that text, counts it under its
 * own label, and refuses a repair of it with a 409 that says why; a filter value of another form than
 * a stored one can have is still a 400 problem naming the field. Every answer holds to the schema
 * {@code /openapi.json} documents for it, so a newer name is no breach of the contract either.
 */
class UnknownStatusesAndCodesIT {
    static final String OPERATOR = "op-secret-" + UUID.randomUUID();
    private static final TestDatabase DB = TestDatabase.get();

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB, "OUTBOX_OPS_TOKEN", OPERATOR);

    private static String[] op() {
        return new String[] {"Authorization", "Bearer " + OPERATOR, "X-Operator", "alice"};
    }

    /** A row as a newer version's SQL would leave it: any status and error code, no lease. */
    static UUID row(String status, String errorCode, String aggregate, Long version) {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload, status, attempt_count, last_error_code,"
                        + " last_error_message) VALUES (?, 'order', ?, ?, 'order.created', 'orders.events',"
                        + " 'order.created', '{}'::jsonb, ?, 3, ?, CASE WHEN ?::text IS NULL THEN NULL ELSE 'from v2' END)",
                id,
                aggregate,
                version,
                status,
                errorCode,
                errorCode);
        return id;
    }

    private static ApiClient.Reply get(String path) throws Exception {
        return API.client().get(path, op());
    }

    private static List<String> ids(JsonNode page) {
        List<String> ids = new ArrayList<>();
        page.get("items").forEach(r -> ids.add(r.get("id").asText()));
        return ids;
    }

    @Test
    void aRowInAStatusOrWithACodeThisVersionDoesNotKnowIsShownAsStored() throws Exception {
        DocumentedAnswers doc = DocumentedAnswers.of(API.client());
        UUID parked = row("PARKED", "FUTURE_727", "p", null);
        UUID archived = row("ARCHIVED", null, "a", null);

        ApiClient.Reply one = get("/ops/outbox/" + parked);
        doc.assertConforms("get", "/ops/outbox/{id}", one, 200);
        assertEquals("PARKED", one.json().get("status").asText());
        assertEquals("FUTURE_727", one.json().get("lastErrorCode").asText());
        ApiClient.Reply other = get("/ops/outbox/" + archived);
        doc.assertConforms("get", "/ops/outbox/{id}", other, 200);
        assertEquals("ARCHIVED", other.json().get("status").asText());
        assertFalse(other.json().has("lastErrorCode"), other.body());

        // the two reads that answered 500 on the old code
        ApiClient.Reply parkedPage = get("/ops/outbox?status=PARKED");
        doc.assertConforms("get", "/ops/outbox", parkedPage, 200);
        assertEquals(List.of(parked.toString()), ids(parkedPage.json()));
        ApiClient.Reply everything = get("/ops/outbox");
        doc.assertConforms("get", "/ops/outbox", everything, 200);
        assertEquals(2, everything.json().get("items").size(), "no row dropped: " + everything.body());
    }

    @Test
    void aFilterByANameThisVersionDoesNotKnowFindsTheRowsThatHaveIt() throws Exception {
        DocumentedAnswers doc = DocumentedAnswers.of(API.client());
        UUID parked = row("PARKED", "FUTURE_727", "p", null);
        UUID archived = row("ARCHIVED", null, "a", null);
        row("PARKED", "UNROUTABLE", "k", null);

        ApiClient.Reply byStatus = get("/ops/outbox?status=ARCHIVED");
        doc.assertConforms("get", "/ops/outbox", byStatus, 200);
        assertEquals(List.of(archived.toString()), ids(byStatus.json()));
        ApiClient.Reply byCode = get("/ops/outbox?errorCode=FUTURE_727");
        doc.assertConforms("get", "/ops/outbox", byCode, 200);
        assertEquals(List.of(parked.toString()), ids(byCode.json()));
        assertEquals(
                List.of(parked.toString()),
                ids(get("/ops/outbox?status=PARKED&errorCode=FUTURE_727").json()));

        // a name no row has, of the stored shape (the longest too): an empty page, not a 400
        for (String query : List.of(
                "status=NOT_A_STATUS_YET", "errorCode=NOT_A_CODE_YET", "status=A", "status=" + "Z".repeat(40))) {
            ApiClient.Reply none = get("/ops/outbox?" + query);
            doc.assertConforms("get", "/ops/outbox", none, 200);
            assertEquals(List.of(), ids(none.json()), query);
            assertTrue(none.json().get("next").isNull(), query);
        }
    }

    @Test
    void aFilterValueOfAnotherFormThanAStoredNameIsA400NamingTheField() throws Exception {
        DocumentedAnswers doc = DocumentedAnswers.of(API.client());
        row("ARCHIVED", null, "a", null);
        for (String[] bad : List.of(
                new String[] {"status", "archived"},
                new String[] {"status", "Archived"},
                new String[] {"status", "1ARCHIVED"},
                new String[] {"status", "_ARCHIVED"},
                new String[] {"status", "ARCHIVED-2"},
                new String[] {"status", "Z".repeat(41)},
                new String[] {"errorCode", "future_727"},
                new String[] {"errorCode", "FUTURE%20727"})) {
            ApiClient.Reply r = get("/ops/outbox?" + bad[0] + "=" + bad[1]);
            doc.assertConforms("get", "/ops/outbox", r, 400);
            assertEquals("application/problem+json", r.header("Content-Type").split(";")[0], bad[1]);
            assertEquals("validation_failed", r.json().get("code").asText(), bad[1]);
            JsonNode error = r.json().get("errors").get(0);
            assertEquals(bad[0], error.get("field").asText(), bad[1]);
            String message = error.get("message").asText();
            assertTrue(
                    message.startsWith("must be " + (bad[0].equals("status") ? "a status" : "an error code")
                            + ": an upper-case letter, then upper-case letters, digits or _, at most 40"),
                    message);
            List<String> known = bad[0].equals("status")
                    ? Arrays.stream(OutboxStatus.values()).map(Enum::name).toList()
                    : Arrays.stream(ErrorCode.values()).map(Enum::name).toList();
            assertTrue(message.endsWith("(known to this version: " + String.join(", ", known) + ")"), message);
        }
    }

    @Test
    void statsCountANameThisVersionDoesNotKnowUnderItsOwnLabel() throws Exception {
        DocumentedAnswers doc = DocumentedAnswers.of(API.client());
        row("PARKED", "FUTURE_727", "p1", null);
        row("PARKED", "FUTURE_727", "p2", null);
        row("PARKED", "UNROUTABLE", "p3", null);
        row("ARCHIVED", null, "a1", null);
        row("ARCHIVED", "FUTURE_727", "a2", null);
        row("SHELVED_BY_V3", null, "s1", null);
        row("PENDING", null, "n1", null);

        ApiClient.Reply r = get("/ops/outbox/stats");
        doc.assertConforms("get", "/ops/outbox/stats", r, 200);
        JsonNode counts = r.json().get("counts");
        assertEquals(3, counts.get("PARKED").asLong(), r.body());
        assertEquals(1, counts.get("PENDING").asLong(), r.body());
        assertEquals(0, counts.get("IN_PROGRESS").asLong(), "a known status with no rows is still 0: " + r.body());
        assertEquals(0, counts.get("RETRYABLE_FAILED").asLong(), r.body());
        assertEquals(2, counts.get("ARCHIVED").asLong(), r.body());
        assertEquals(1, counts.get("SHELVED_BY_V3").asLong(), r.body());
        List<String> labels = new ArrayList<>();
        counts.fieldNames().forEachRemaining(labels::add);
        assertEquals(
                List.of("PENDING", "IN_PROGRESS", "RETRYABLE_FAILED", "PARKED", "ARCHIVED", "SHELVED_BY_V3"),
                labels,
                "the finished statuses are counted under finished, not twice");
        assertEquals(0, r.json().at("/finished/PUBLISHED/count").asLong(-1), r.body());
        JsonNode parked = r.json().get("parkedByErrorCode");
        assertEquals(2, parked.get("FUTURE_727").asLong(), r.body());
        assertEquals(1, parked.get("UNROUTABLE").asLong(), r.body());
    }

    @Test
    void whatHoldsARowBackIsShownWhateverItsStatusOrCode() throws Exception {
        DocumentedAnswers doc = DocumentedAnswers.of(API.client());
        UUID parked = row("PARKED", "FUTURE_727", "held", 1L);
        UUID waiting = row("PENDING", null, "held", 2L);
        UUID archived = row("ARCHIVED", "FUTURE_727", "shelved", 1L);
        UUID behind = row("PENDING", null, "shelved", 2L);

        ApiClient.Reply held = get("/ops/outbox/" + waiting);
        doc.assertConforms("get", "/ops/outbox/{id}", held, 200);
        assertEquals(parked.toString(), held.json().at("/blockedBy/id").asText());
        assertEquals("PARKED", held.json().at("/blockedBy/status").asText());
        assertEquals("FUTURE_727", held.json().at("/blockedBy/lastErrorCode").asText());
        ApiClient.Reply shelved = get("/ops/outbox/" + behind);
        doc.assertConforms("get", "/ops/outbox/{id}", shelved, 200);
        assertEquals(archived.toString(), shelved.json().at("/blockedBy/id").asText());
        assertEquals("ARCHIVED", shelved.json().at("/blockedBy/status").asText());

        ApiClient.Reply reconcile = get("/ops/outbox/reconcile");
        doc.assertConforms("get", "/ops/outbox/reconcile", reconcile, 200);
        JsonNode blocked = reconcile.json().get("blockedAggregates");
        assertEquals(1, blocked.size(), reconcile.body());
        assertEquals("held", blocked.get(0).get("aggregateId").asText());
        assertEquals("FUTURE_727", blocked.get(0).get("errorCode").asText());
    }

    @Test
    void aRepairOfARowInAStatusThisVersionDoesNotKnowIsA409ThatSaysSo() throws Exception {
        DocumentedAnswers doc = DocumentedAnswers.of(API.client());
        UUID archived = row("ARCHIVED", "FUTURE_727", "a", null);
        for (String[] action : List.of(
                new String[] {"retry", "{}", "PARKED or RETRYABLE_FAILED", "retried"},
                new String[] {
                    "cancel", "{\"reason\":\"not wanted\"}", "PENDING, RETRYABLE_FAILED or PARKED", "cancelled"
                },
                new String[] {"replay", "{}", "PUBLISHED", "replayed"},
                new String[] {"release", "{\"reason\":\"relay gone\"}", "IN_PROGRESS", "released"})) {
            ApiClient.Reply r = API.client().post("/ops/outbox/" + archived + "/" + action[0], action[1], op());
            doc.assertConforms("post", "/ops/outbox/{id}/" + action[0], r, 409);
            assertEquals("invalid_state", r.json().get("code").asText(), action[0]);
            assertEquals(
                    "message " + archived + " is ARCHIVED, a status this version does not know; only " + action[2]
                            + " rows can be " + action[3],
                    r.json().get("detail").asText());
        }
        assertEquals(
                "ARCHIVED/FUTURE_727/3",
                DB.scalar(
                        "SELECT status || '/' || last_error_code || '/' || attempt_count FROM message_outbox WHERE id = ?",
                        archived),
                "a refused repair changes nothing");
        assertEquals(0, DB.count("SELECT count(*) FROM ops_audit"), "nor is it audited");

        // a note is kept whatever the row's status
        ApiClient.Reply note =
                API.client().post("/ops/outbox/" + archived + "/note", "{\"reason\":\"v2 owns it\"}", op());
        doc.assertConforms("post", "/ops/outbox/{id}/note", note, 200);
    }

    /**
     * A bulk retry changes rows, so it takes only the failed statuses this version knows; an error
     * code only narrows them, so one a newer version wrote is matched.
     */
    @Test
    void aBulkRetryMatchesANewerCodeButTakesOnlyKnownFailedStatuses() throws Exception {
        DocumentedAnswers doc = DocumentedAnswers.of(API.client());
        UUID parked = row("PARKED", "FUTURE_727", "p", null);
        UUID archived = row("ARCHIVED", "FUTURE_727", "a", null);
        row("PARKED", "UNROUTABLE", "k", null);

        ApiClient.Reply dry =
                API.client().post("/ops/outbox/retry", "{\"errorCode\":\"FUTURE_727\",\"dryRun\":true}", op());
        doc.assertConforms("post", "/ops/outbox/retry", dry, 200);
        assertEquals(1, dry.json().get("matched").asLong(), "the parked row only, not the archived one");

        for (String body : List.of(
                "{\"status\":\"ARCHIVED\",\"errorCode\":\"FUTURE_727\"}",
                "{\"status\":\"parked\",\"errorCode\":\"FUTURE_727\"}",
                "{\"status\":\"PENDING\",\"errorCode\":\"FUTURE_727\"}")) {
            ApiClient.Reply r = API.client().post("/ops/outbox/retry", body, op());
            doc.assertConforms("post", "/ops/outbox/retry", r, 400);
            assertEquals("status", r.json().at("/errors/0/field").asText(), body);
            assertEquals(
                    "must be PARKED or RETRYABLE_FAILED",
                    r.json().at("/errors/0/message").asText(),
                    body);
        }
        ApiClient.Reply lower = API.client().post("/ops/outbox/retry", "{\"errorCode\":\"future_727\"}", op());
        doc.assertConforms("post", "/ops/outbox/retry", lower, 400);
        assertEquals("errorCode", lower.json().at("/errors/0/field").asText());

        ApiClient.Reply done = API.client()
                .post("/ops/outbox/retry", "{\"errorCode\":\"FUTURE_727\",\"reason\":\"v2 relay is back\"}", op());
        doc.assertConforms("post", "/ops/outbox/retry", done, 200);
        assertEquals(1, done.json().get("retried").asInt(), done.body());
        assertEquals(parked.toString(), done.json().at("/ids/0").asText());
        assertEquals("PENDING", DB.scalar("SELECT status FROM message_outbox WHERE id = ?", parked));
        assertEquals("ARCHIVED", DB.scalar("SELECT status FROM message_outbox WHERE id = ?", archived));
        assertEquals("FUTURE_727", DB.scalar("SELECT filter->>'errorCode' FROM ops_audit"));
    }

    /** The document gives the stored shape, not a closed list, wherever a status or code is read or filtered by. */
    @Test
    void theDocumentDescribesStatusesAndCodesAsAnOpenSet() throws Exception {
        JsonNode doc = DocumentedAnswers.of(API.client()).doc();
        String pattern = "^[A-Z][A-Z0-9_]{0,39}$";
        List<String> statuses =
                Arrays.stream(OutboxStatus.values()).map(Enum::name).toList();
        List<String> codes = Arrays.stream(ErrorCode.values()).map(Enum::name).toList();
        for (String[] f : List.of(
                new String[] {"OutboxRow", "status"},
                new String[] {"OutboxRow", "lastErrorCode"},
                new String[] {"Blocker", "status"},
                new String[] {"Blocker", "lastErrorCode"},
                new String[] {"BlockedAggregate", "errorCode"},
                new String[] {"BulkRetryRequest", "errorCode"})) {
            JsonNode p = doc.at("/components/schemas/" + f[0] + "/properties/" + f[1]);
            assertFalse(p.has("enum"), f[0] + "." + f[1] + ": " + p);
            assertEquals(pattern, p.path("pattern").asText(), f[0] + "." + f[1]);
            assertEquals(f[1].equals("status") ? statuses : codes, texts(p.get("x-known-values")), f[0] + "." + f[1]);
        }
        int parameters = 0;
        for (JsonNode p : doc.at("/paths/~1ops~1outbox/get/parameters")) {
            String name = p.path("name").asText();
            if (name.equals("status") || name.equals("errorCode")) {
                assertFalse(p.get("schema").has("enum"), p.toString());
                assertEquals(pattern, p.at("/schema/pattern").asText(), name);
                assertEquals(name.equals("status") ? statuses : codes, texts(p.at("/schema/x-known-values")), name);
                assertTrue(p.path("description").asText().contains("Known to this version: "), name);
                parameters++;
            }
        }
        assertEquals(2, parameters);
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
