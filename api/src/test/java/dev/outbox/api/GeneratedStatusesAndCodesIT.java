package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.gen.Generators;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Issue 42 over generated data: batches of rows written by SQL, as a newer version would write
 * them, each with a status and a last error code drawn from the names this version knows and from
 * any name of the stored shape ({@code [A-Z][A-Z0-9_]{0,39}}), read back through the operator API:
 * each row alone, the list, a filter by every status and every code the batch holds and by a name
 * none has, and the stats. No answer is a 5xx or breaks the schema {@code /openapi.json} documents
 * for it; every row is shown with its text as stored and found by it; every status and every parked
 * row's code is counted under its own label.
 */
class GeneratedStatusesAndCodesIT {
    static final String OPERATOR = "op-secret-" + UUID.randomUUID();
    private static final TestDatabase DB = TestDatabase.get();
    private static final List<String> STATUSES =
            Arrays.stream(OutboxStatus.values()).map(Enum::name).toList();
    private static final List<String> CODES =
            Arrays.stream(ErrorCode.values()).map(Enum::name).toList();
    /** The statuses {@code counts} holds even at 0; the finished ones are under {@code finished}. */
    private static final List<String> UNFINISHED = List.of("PENDING", "IN_PROGRESS", "RETRYABLE_FAILED", "PARKED");

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB, "OUTBOX_OPS_TOKEN", OPERATOR);

    /** A row as written: the status and code as stored. */
    record Row(String status, String code) {}

    /** One example: the rows of a batch, and a name to filter by that no row need have. */
    record Batch(List<Row> rows, String probe) {}

    /** A name of the stored shape; one in ten an edge: the shortest, the longest, one close to a known name. */
    static Gen<String> shapedName() {
        // the test kit's code-shaped values, and now and then one a letter away from a known name
        return Generators.code()
                .mix(
                        Generate.pick(
                                List.of("Z" + "_".repeat(39), "A".repeat(40), "PARKED_", "PENDING2", "UNROUTABLE_")),
                        10);
    }

    /** Half the names this version knows, half any of the stored shape. */
    static Gen<Row> rows() {
        Gen<String> status = Generate.pick(STATUSES).mix(shapedName(), 50);
        Gen<String> code =
                Generate.constant((String) null).mix(Generate.pick(CODES), 40).mix(shapedName(), 40);
        return status.zip(
                code,
                (s, c) ->
                        // a failed row says why (message_outbox_failure_has_code): one of these gets a code
                        new Row(s, c == null && (s.equals("PARKED") || s.equals("RETRYABLE_FAILED")) ? "OPERATOR" : c));
    }

    static Gen<Batch> batches() {
        return lists().of(rows())
                .ofSizeBetween(1, 8)
                .zip(shapedName(), Batch::new)
                .describedAs(b -> b.rows() + ", probe " + b.probe());
    }

    private static String[] op() {
        return new String[] {"Authorization", "Bearer " + OPERATOR};
    }

    /** The row, with what its status implies (a lease, a time of publishing or cancelling). */
    private static UUID write(Row r, int n) {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload, status, attempt_count, last_error_code, published_at, cancelled_at,"
                        + " locked_by, locked_at, lease_token) VALUES (?, 'gen', ?, 'gen.test', 'orders.events',"
                        + " 'gen.test', '{}'::jsonb, ?, 1, ?, CASE WHEN ? = 'PUBLISHED' THEN now() END,"
                        + " CASE WHEN ? = 'CANCELLED' THEN now() END, CASE WHEN ? = 'IN_PROGRESS' THEN 'relay-gen' END,"
                        + " CASE WHEN ? = 'IN_PROGRESS' THEN now() END,"
                        + " CASE WHEN ? = 'IN_PROGRESS' THEN nextval('message_outbox_lease_token_seq') END)",
                id,
                "g-" + n,
                r.status(),
                r.code(),
                r.status(),
                r.status(),
                r.status(),
                r.status(),
                r.status());
        return id;
    }

    @Test
    void everyRowIsShownFoundAndCountedByItsTextWhateverItsStatusAndCode() throws Exception {
        DocumentedAnswers doc = DocumentedAnswers.of(API.client());
        qt().withExamples(150).forAll(batches()).checkAssert(batch -> {
            try {
                check(doc, batch);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void check(DocumentedAnswers doc, Batch batch) throws Exception {
        DB.update("DELETE FROM message_outbox");
        Map<String, Row> written = new TreeMap<>();
        for (Row r : batch.rows()) {
            written.put(write(r, written.size()).toString(), r);
        }

        for (Map.Entry<String, Row> e : written.entrySet()) {
            ApiClient.Reply one = API.client().get("/ops/outbox/" + e.getKey(), op());
            doc.assertConforms("get", "/ops/outbox/{id}", one, 200);
            assertEquals(e.getValue(), shown(one.json()), e.getKey());
        }

        ApiClient.Reply list = API.client().get("/ops/outbox?limit=500", op());
        doc.assertConforms("get", "/ops/outbox", list, 200);
        Map<String, Row> listed = new TreeMap<>();
        list.json().get("items").forEach(item -> listed.put(item.get("id").asText(), shown(item)));
        assertEquals(written, listed, "every row, each as stored");

        Set<String> statuses = new LinkedHashSet<>();
        Set<String> codes = new LinkedHashSet<>();
        written.values().forEach(r -> {
            statuses.add(r.status());
            if (r.code() != null) {
                codes.add(r.code());
            }
        });
        statuses.add(batch.probe());
        codes.add(batch.probe());
        for (String status : statuses) {
            assertEquals(
                    ids(written, r -> status.equals(r.status())), found(doc, "status=" + status), "status " + status);
        }
        for (String code : codes) {
            assertEquals(ids(written, r -> code.equals(r.code())), found(doc, "errorCode=" + code), "code " + code);
        }

        ApiClient.Reply stats = API.client().get("/ops/outbox/stats", op());
        doc.assertConforms("get", "/ops/outbox/stats", stats, 200);
        Map<String, Long> counts = new TreeMap<>();
        UNFINISHED.forEach(s -> counts.put(s, 0L));
        Map<String, Long> finished = new TreeMap<>(Map.of("PUBLISHED", 0L, "CANCELLED", 0L));
        Map<String, Long> parked = new TreeMap<>();
        for (Row r : written.values()) {
            (finished.containsKey(r.status()) ? finished : counts).merge(r.status(), 1L, Long::sum);
            if (r.status().equals("PARKED")) {
                parked.merge(r.code(), 1L, Long::sum);
            }
        }
        assertEquals(counts, longs(stats.json().get("counts")), "counts: " + stats.body());
        Map<String, Long> finishedShown = new TreeMap<>();
        stats.json().get("finished").properties().forEach(e -> {
            assertTrue(e.getValue().get("exact").asBoolean(), "counted one by one at this size: " + e);
            finishedShown.put(e.getKey(), e.getValue().get("count").asLong());
        });
        assertEquals(finished, finishedShown, "finished: " + stats.body());
        assertEquals(parked, longs(stats.json().get("parkedByErrorCode")), "parked: " + stats.body());
    }

    private static Row shown(JsonNode row) {
        return new Row(
                row.get("status").asText(),
                row.hasNonNull("lastErrorCode") ? row.get("lastErrorCode").asText() : null);
    }

    private static Set<String> ids(Map<String, Row> written, java.util.function.Predicate<Row> which) {
        return written.entrySet().stream()
                .filter(e -> which.test(e.getValue()))
                .map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> found(DocumentedAnswers doc, String query) throws Exception {
        ApiClient.Reply r = API.client().get("/ops/outbox?limit=500&" + query, op());
        doc.assertConforms("get", "/ops/outbox", r, 200);
        Set<String> ids = new TreeSet<>();
        r.json().get("items").forEach(item -> ids.add(item.get("id").asText()));
        assertEquals(ids.size(), r.json().get("items").size(), "no row twice: " + query);
        return ids;
    }

    private static Map<String, Long> longs(JsonNode object) {
        Map<String, Long> out = new TreeMap<>();
        object.properties().forEach(e -> out.put(e.getKey(), e.getValue().asLong()));
        return out;
    }

    @Test
    void theNamesDrawnHaveTheStoredShapeAndReachItsEdges() {
        List<String> drawn = new ArrayList<>();
        qt().withExamples(2_000).forAll(shapedName()).checkAssert(name -> {
            assertTrue(name.matches("[A-Z][A-Z0-9_]{0,39}"), name);
            drawn.add(name);
        });
        assertTrue(drawn.stream().anyMatch(n -> n.length() == 1), "a one-letter name");
        assertTrue(drawn.stream().anyMatch(n -> n.length() == 40), "a 40-character name");
        assertTrue(
                drawn.stream()
                                .distinct()
                                .filter(n -> !STATUSES.contains(n) && !CODES.contains(n))
                                .count()
                        > 500,
                "many names this version does not know");
    }
}
