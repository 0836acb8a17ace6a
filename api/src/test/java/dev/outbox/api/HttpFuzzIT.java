package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.outbox.kernel.json.Json;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.otlp.OtlpReceiver;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Generated HTTP input against every operation the running API documents in {@code /openapi.json}
 * (read from the API, not listed here), on the real database: per-field mutations of every body,
 * query, path and header parameter, whole bodies, framing, head sizes, media types, methods and
 * tokens, then seeded random combinations ({@link HttpFuzzCases}), sent over a raw socket. Every
 * answer must keep these invariants:
 *
 * <ul>
 *   <li>no 5xx, and an answer at all (a clean close only where the client broke the framing);
 *   <li>every error is {@code application/problem+json} with {@code type}, {@code title},
 *       {@code status} (the HTTP status) and {@code detail};
 *   <li>nothing internal in any header or error body: no class, exception or server name, no
 *       version, SQL or stack frame; no {@code Server} header;
 *   <li>a rejected request writes nothing: orders, outbox, idempotency keys and audit trail have
 *       the same rows and no newer row version than before;
 *   <li>the status is one the document lists for the operation, and what the case demands
 *       (a body the document's schema refuses is a 4xx, a malformed %-escape 400, ...);
 *   <li>no ERROR, and no WARN with a stack trace, in the server log.
 * </ul>
 *
 * <p>The seed is fixed so CI is repeatable; {@code -Dfuzz.seed=N} explores others. The counts per
 * operation and per status are printed for the README.
 */
class HttpFuzzIT {
    static final String OPERATOR = "op-fuzz-" + UUID.randomUUID();
    static final String READER = "read-fuzz-" + UUID.randomUUID();
    private static final long SEED = Long.getLong("fuzz.seed", 20261201L);
    private static final long MAX_BODY = 1024 * 1024;
    private static final TestDatabase DB = TestDatabase.get();

    /** The API traces every request it is sent, so generated headers reach the tracing code too. */
    private static final OtlpReceiver OTLP = OtlpReceiver.startUnchecked();

    @RegisterExtension
    static final RunningApi API = new RunningApi(
            DB,
            "OUTBOX_OPS_TOKEN",
            OPERATOR,
            "OUTBOX_OPS_READ_TOKEN",
            READER,
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            OTLP.endpoint(),
            "OTEL_BSP_SCHEDULE_DELAY",
            "100");

    /** What must never reach a client: the same pattern {@link HttpEdgeIT} holds every answer to. */
    static final Pattern LEAK = HttpEdgeIT.INTERNALS;

    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaRegistryConfig(
                    SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
    private static final ObjectMapper STRICT_JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION.mappedFeature());

    private static JsonNode doc;

    /** One operation of the document, with what the generator needs from it. */
    record Operation(
            String method,
            String template,
            boolean secured,
            List<JsonNode> parameters,
            JsonNode bodySchema,
            boolean bodyRequired,
            JsonNode validBody,
            String fixture,
            Set<String> methodsOnPath,
            Set<Integer> documented) {
        String key() {
            return method + " " + template;
        }
    }

    @Test
    void everyDocumentedOperationAnswersGeneratedInputCleanly() throws Exception {
        ApiClient.Reply published = API.client().get("/openapi.json");
        assertEquals(200, published.status());
        doc = published.json();
        List<Operation> operations = operations(doc);
        assertTrue(operations.size() >= 25, "operations in the document: " + operations.size());

        HttpFuzzCases generator = new HttpFuzzCases(operations, MAX_BODY, SEED, OPERATOR, READER);
        RawHttp http = new RawHttp(API.port());
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        root.addAppender(log);

        Map<String, Map<Integer, Integer>> byOperation = new LinkedHashMap<>();
        Map<Integer, Integer> byStatus = new TreeMap<>();
        Map<String, List<String>> failures = new TreeMap<>();
        List<String> slow = new ArrayList<>();
        long fixtureNanos = 0;
        long fingerprintNanos = 0;
        long sendNanos = 0;
        int sent = 0;
        long started = System.nanoTime();
        try {
            for (Operation op : operations) {
                DocumentFixture fixture = null;
                String state = null; // the tables as the last request left them, while nothing else wrote
                for (HttpFuzzCases.Case c : generator.casesFor(op)) {
                    if (fixture == null) {
                        long f0 = System.nanoTime();
                        fixture = fixture(op.fixture());
                        fixtureNanos += System.nanoTime() - f0;
                        state = null; // the fixture wrote; the next request starts from what is there now
                    }
                    FuzzRequest request = base(op, fixture);
                    c.mutation().accept(request);
                    replaceAggregatePlaceholder(request, fixture);
                    RawHttp.Request raw = request.toRaw();
                    int logged = log.list.size();
                    long d0 = System.nanoTime();
                    String before = state != null ? state : fingerprint();
                    fingerprintNanos += System.nanoTime() - d0;
                    RawHttp.Answer answer;
                    long t0 = System.nanoTime();
                    try {
                        answer = http.send(raw);
                        sendNanos += System.nanoTime() - t0;
                    } catch (IOException e) {
                        fail(failures, "no answer", c, raw, e.toString());
                        sent++;
                        state = null;
                        continue;
                    } finally {
                        long millis = (System.nanoTime() - t0) / 1_000_000;
                        if (millis > 1_000) {
                            slow.add(millis + " ms " + op.key() + " [" + c.family() + ": " + c.label() + "]");
                        }
                    }
                    long d1 = System.nanoTime();
                    String after = fingerprint();
                    fingerprintNanos += System.nanoTime() - d1;
                    state = after;
                    sent++;
                    int status = answer.closedWithoutAnswer() ? 0 : answer.status();
                    byOperation.computeIfAbsent(op.key(), k -> new TreeMap<>()).merge(status, 1, Integer::sum);
                    byStatus.merge(status, 1, Integer::sum);
                    check(c, raw, answer, "HEAD".equals(request.method), before, after, failures);
                    checkLog(c, raw, log, logged, failures);
                    if (status >= 200 && status < 300 && !"GET".equals(request.method)) {
                        fixture = null; // the write changed the fixture's state: make a fresh one
                    }
                }
            }
        } finally {
            root.detachAppender(log);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        String report = report(sent, seconds, operations.size(), byOperation, byStatus, failures);
        System.out.println(report);
        writeFullReport(report, failures);
        System.out.printf(
                "[http-fuzz] time: %.1f s answering, %.1f s counting rows, %.1f s making fixtures%n",
                sendNanos / 1e9, fingerprintNanos / 1e9, fixtureNanos / 1e9);
        slow.stream().limit(20).forEach(s -> System.out.println("[http-fuzz] slow: " + s));

        assertTrue(sent >= 1_000, "at least 1,000 generated requests: " + sent);
        for (Operation op : operations) {
            Map<Integer, Integer> counts = byOperation.getOrDefault(op.key(), Map.of());
            assertTrue(
                    counts.keySet().stream().anyMatch(s -> s >= 200 && s < 300),
                    op.key() + " never succeeded, so its mutations never reached past validation: " + counts);
        }
        assertEquals(Map.of(), failures, report);
        // traced all along: every server span out of the API (the last ones flushed), none an error
        API.flushSpans();
        assertTrue(OTLP.spans().stream().anyMatch(span -> span.kind().equals("SPAN_KIND_SERVER")), "no server span");
        List<OtlpReceiver.ReceivedSpan> errors = OTLP.spans().stream()
                .filter(span -> span.kind().equals("SPAN_KIND_SERVER") && span.isError())
                .toList();
        assertEquals(List.of(), errors, "server spans with an error status");
    }

    // ------------------------------------------------------------ invariants

    private static void check(
            HttpFuzzCases.Case c,
            RawHttp.Request raw,
            RawHttp.Answer answer,
            boolean head,
            String before,
            String after,
            Map<String, List<String>> failures) {
        if (answer.closedWithoutAnswer()) {
            if (!c.mayClose()) {
                fail(failures, "closed without an answer", c, raw, "");
            }
            if (!before.equals(after)) {
                fail(failures, "a rejected request wrote", c, raw, before + " -> " + after);
            }
            return;
        }
        int status = answer.status();
        if (status >= 500) {
            fail(failures, "5xx", c, raw, answer.describe());
        }
        if (!c.expect().accepts(status)) {
            fail(failures, "status other than " + c.expect().what(), c, raw, answer.describe());
        }
        if (c.documentedMethod() && status != 0 && !c.op().documented().contains(status)) {
            fail(failures, "status not in the document", c, raw, answer.describe());
        }
        if (status >= 400) {
            String problem = problemDefect(answer, head);
            if (problem != null) {
                fail(failures, "error without problem+json", c, raw, problem + ": " + answer.describe());
            }
            if (!before.equals(after)) {
                fail(failures, "a rejected request wrote", c, raw, before + " -> " + after);
            }
        }
        for (String[] h : answer.headers()) {
            if (h[0].equalsIgnoreCase("Server") || h[0].equalsIgnoreCase("X-Powered-By")) {
                fail(failures, "leak", c, raw, "header " + h[0] + ": " + h[1]);
            } else if (LEAK.matcher(h[1]).find()) {
                fail(failures, "leak", c, raw, "header " + h[0] + ": " + h[1]);
            }
        }
        if (status >= 300 || "application/problem+json".equals(answer.mediaType())) {
            if (LEAK.matcher(answer.bodyText()).find()) {
                fail(failures, "leak", c, raw, answer.describe());
            }
        }
    }

    /** Null when the answer is a complete problem; else what is missing. */
    private static String problemDefect(RawHttp.Answer answer, boolean head) {
        if (!"application/problem+json".equals(answer.mediaType())) {
            return "Content-Type " + answer.header("Content-Type");
        }
        if (head) {
            return null; // a HEAD answer has no body to check
        }
        JsonNode p;
        try {
            p = Json.mapper().readTree(answer.body());
        } catch (IOException e) {
            return "body is not JSON";
        }
        if (p == null || !p.path("type").isTextual() || !p.path("title").isTextual()) {
            return "no type or title";
        }
        if (!p.path("detail").isTextual() || p.path("detail").asText().isBlank()) {
            return "no detail";
        }
        if (p.path("status").asInt() != answer.status()) {
            return "status " + p.path("status") + " in the body";
        }
        return null;
    }

    private static void checkLog(
            HttpFuzzCases.Case c,
            RawHttp.Request raw,
            ListAppender<ILoggingEvent> log,
            int from,
            Map<String, List<String>> failures) {
        List<ILoggingEvent> events;
        synchronized (log) {
            events = new ArrayList<>(log.list.subList(from, log.list.size()));
        }
        for (ILoggingEvent e : events) {
            boolean error = e.getLevel().isGreaterOrEqual(Level.ERROR);
            boolean warnWithTrace = e.getLevel().isGreaterOrEqual(Level.WARN) && e.getThrowableProxy() != null;
            if (error || warnWithTrace) {
                fail(
                        failures,
                        "ERROR or stack trace logged",
                        c,
                        raw,
                        e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage()
                                + (e.getThrowableProxy() == null
                                        ? ""
                                        : " " + e.getThrowableProxy().getClassName()));
            }
        }
    }

    private static void fail(
            Map<String, List<String>> failures, String kind, HttpFuzzCases.Case c, RawHttp.Request raw, String what) {
        failures.computeIfAbsent(kind, k -> new ArrayList<>())
                .add(c.op().key() + " [" + c.family() + ": " + c.label() + "] " + what + "\n      sent: " + raw);
    }

    /**
     * What a request may have written to the tables it can write: per table the row count and the
     * newest row version's transaction id. An insert or update leaves a row version with a newer
     * {@code xmin} than any before it, a delete lowers the count, so a rejected request that wrote
     * anything changes this; it costs a scan without turning every row into text.
     */
    private static String fingerprint() {
        return (String) DB.scalar("SELECT "
                + digest("orders") + " || ' / ' || " + digest("message_outbox") + " || ' / ' || "
                + digest("idempotency_keys") + " || ' / ' || " + digest("ops_audit"));
    }

    private static String digest(String table) {
        return "(SELECT '" + table + " ' || count(*) || ' rows, newest version ' ||"
                + " coalesce(max(xmin::text::bigint), 0) FROM " + table + ")";
    }

    // ------------------------------------------------------------ expectations

    /** A body the document's schema refuses must be refused; one it allows must not fail. */
    static HttpFuzzCases.Expect expectForBody(Operation op, String body) {
        JsonNode parsed;
        try {
            parsed = STRICT_JSON.readTree(body);
        } catch (IOException e) {
            return HttpFuzzCases.Expect.REJECT;
        }
        if (parsed == null || parsed.isMissingNode() || parsed.isNull()) {
            // no body, or the JSON document null, which Jackson and Jersey read as no body
            return op.bodyRequired() ? HttpFuzzCases.Expect.REJECT : HttpFuzzCases.Expect.ANY;
        }
        return validate(op.bodySchema(), parsed).isEmpty() ? HttpFuzzCases.Expect.ANY : HttpFuzzCases.Expect.REJECT;
    }

    /** A header longer than its documented maxLength must be refused. */
    static HttpFuzzCases.Expect expectForHeader(JsonNode parameter, byte[] value) {
        JsonNode max = parameter.path("schema").path("maxLength");
        if (max.isInt() && value.length > max.asInt()) {
            return HttpFuzzCases.Expect.REJECT;
        }
        return HttpFuzzCases.Expect.ANY;
    }

    static List<com.networknt.schema.Error> validate(JsonNode schema, JsonNode instance) {
        ObjectNode wrapper = Json.mapper().createObjectNode();
        wrapper.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        wrapper.setAll((ObjectNode) rewriteRefs(schema));
        wrapper.set("$defs", rewriteRefs(doc.get("components").get("schemas")));
        return SCHEMAS.getSchema(wrapper).validate(instance);
    }

    private static JsonNode rewriteRefs(JsonNode node) {
        try {
            return Json.mapper().readTree(node.toString().replace("\"#/components/schemas/", "\"#/$defs/"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------ the document

    static List<Operation> operations(JsonNode doc) {
        List<Operation> out = new ArrayList<>();
        doc.get("paths").properties().forEach(path -> {
            Set<String> methods = new TreeSet<>();
            path.getValue().fieldNames().forEachRemaining(m -> methods.add(m.toUpperCase()));
            path.getValue().properties().forEach(entry -> {
                JsonNode op = entry.getValue();
                List<JsonNode> parameters = new ArrayList<>();
                for (JsonNode p : op.path("parameters")) {
                    parameters.add(resolve(doc, p));
                }
                JsonNode media = op.at("/requestBody/content/application~1json");
                JsonNode schema = media.isMissingNode() ? null : resolve(doc, media.get("schema"));
                JsonNode valid = null;
                if (schema != null) {
                    for (JsonNode example : media.path("examples")) {
                        int expected = example.path("x-expect-status").asInt();
                        if (expected >= 200 && expected < 300) {
                            valid = example.get("value");
                            break;
                        }
                    }
                    if (valid == null) {
                        throw new AssertionError(entry.getKey() + " " + path.getKey() + " documents no valid example");
                    }
                }
                Set<Integer> documented = new TreeSet<>();
                op.get("responses").fieldNames().forEachRemaining(code -> documented.add(Integer.parseInt(code)));
                out.add(new Operation(
                        entry.getKey().toUpperCase(),
                        path.getKey(),
                        op.has("security"),
                        parameters,
                        schema,
                        op.path("requestBody").path("required").asBoolean(false),
                        valid,
                        op.path("x-fixture").asText(""),
                        methods,
                        documented));
            });
        });
        return out;
    }

    private static JsonNode resolve(JsonNode doc, JsonNode node) {
        JsonNode ref = node.get("$ref");
        if (ref == null) {
            return node;
        }
        return doc.at(ref.asText().substring(1));
    }

    private static FuzzRequest base(Operation op, DocumentFixture fixture) {
        FuzzRequest r = new FuzzRequest(op.method(), op.template());
        for (JsonNode p : op.parameters()) {
            String name = p.get("name").asText();
            switch (p.path("in").asText()) {
                case "path" ->
                    r.pathValues.put(
                            name,
                            name.equals("id") ? fixture.id() : p.get("example").asText());
                case "query" -> {
                    if (p.has("example")) {
                        r.query.add(new String[] {
                            name, java.net.URLEncoder.encode(p.get("example").asText(), StandardCharsets.UTF_8)
                        });
                    }
                }
                default -> {}
            }
        }
        if (op.secured()) {
            r.header("Authorization", "Bearer " + OPERATOR);
        }
        if (op.validBody() != null) {
            r.body(op.validBody().toString());
            r.contentType = "application/json";
        }
        return r;
    }

    private static void replaceAggregatePlaceholder(FuzzRequest r, DocumentFixture fixture) {
        if (r.body == null) {
            return;
        }
        byte[] placeholder = "{fixture.aggregateId}".getBytes(StandardCharsets.US_ASCII);
        byte[] value = fixture.aggregateId().getBytes(StandardCharsets.US_ASCII);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        outer:
        for (int i = 0; i < r.body.length; i++) {
            if (i <= r.body.length - placeholder.length) {
                for (int j = 0; j < placeholder.length; j++) {
                    if (r.body[i + j] != placeholder[j]) {
                        out.write(r.body[i]);
                        continue outer;
                    }
                }
                out.writeBytes(value);
                i += placeholder.length - 1;
            } else {
                out.write(r.body[i]);
            }
        }
        r.body = out.toByteArray();
    }

    private static DocumentFixture fixture(String name) throws Exception {
        return DocumentFixture.make(name, doc, API);
    }

    // ------------------------------------------------------------------ report

    /** Every failure, not only the first of each kind: target/http-fuzz-report.txt. */
    private static void writeFullReport(String report, Map<String, List<String>> failures) throws IOException {
        StringBuilder sb = new StringBuilder(report).append("\n\nall failures:\n");
        failures.forEach((kind, list) ->
                list.forEach(f -> sb.append(kind).append(": ").append(f).append('\n')));
        java.nio.file.Files.createDirectories(java.nio.file.Path.of("target"));
        java.nio.file.Files.writeString(java.nio.file.Path.of("target", "http-fuzz-report.txt"), sb.toString());
    }

    private static String report(
            int sent,
            double seconds,
            int operations,
            Map<String, Map<Integer, Integer>> byOperation,
            Map<Integer, Integer> byStatus,
            Map<String, List<String>> failures) {
        StringBuilder sb = new StringBuilder();
        long fiveHundreds = byStatus.entrySet().stream()
                .filter(e -> e.getKey() >= 500)
                .mapToLong(Map.Entry::getValue)
                .sum();
        sb.append(String.format(
                "%n[http-fuzz] seed %d: %,d requests to %d operations of /openapi.json in %.1f s; %d answered 5xx,"
                        + " %d leaked, %d failures in all%n",
                SEED,
                sent,
                operations,
                seconds,
                fiveHundreds,
                failures.getOrDefault("leak", List.of()).size(),
                failures.values().stream().mapToInt(List::size).sum()));
        sb.append("[http-fuzz] by status (0 = closed without an answer): ")
                .append(byStatus)
                .append('\n');
        sb.append("[http-fuzz] by operation:\n");
        byOperation.forEach((op, counts) -> sb.append(String.format(
                "  %-36s %5d  %s%n",
                op, counts.values().stream().mapToInt(Integer::intValue).sum(), counts)));
        failures.forEach((kind, list) -> {
            sb.append(String.format("[http-fuzz] %s: %d%n", kind, list.size()));
            list.stream().limit(15).forEach(f -> sb.append("    ").append(f).append('\n'));
        });
        return sb.toString();
    }
}
