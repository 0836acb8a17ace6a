package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.api.http.RequestMetadataFilter;
import dev.outbox.kernel.json.Json;
import dev.outbox.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The HTTP edge, one finding of issue 21 per test, each sent the way a client nobody on the project
 * wrote sends it (a raw socket where {@code java.net.http} would repair the request). The body
 * limit is set low here ({@code OUTBOX_HTTP_MAX_BODY=4KiB}) so that it is the setting, not the
 * default, that is proven; {@link HttpFuzzIT} runs with the default.
 */
class HttpEdgeIT {
    static final String OPERATOR = "op-edge-" + UUID.randomUUID();
    static final String READER = "read-edge-" + UUID.randomUUID();
    private static final int LIMIT = 4 * 1024;
    private static final TestDatabase DB = TestDatabase.get();
    /** What must never reach a client: names of classes, libraries and servers, SQL, stack frames. */
    static final Pattern INTERNALS = Pattern.compile(
            "(?i)grizzly|jersey|glassfish|\\bhk2\\b|jackson|fasterxml|postgres|psql|sqlstate|hikari|mybatis"
                    + "|\\bjava\\.|javax\\.|jakarta\\.|dev\\.outbox|exception|\\bat [\\w$]+\\.[\\w$.]+\\("
                    + "|stack ?trace|syntax error|\\bselect\\b.+\\bfrom\\b|\\binsert into\\b|\\.java:\\d+"
                    + "|caused by|org\\.[a-z]+\\.");

    @RegisterExtension
    static final RunningApi API = new RunningApi(
            DB, "OUTBOX_OPS_TOKEN", OPERATOR, "OUTBOX_OPS_READ_TOKEN", READER, "OUTBOX_HTTP_MAX_BODY", "4KiB");

    private static RawHttp.Answer send(RawHttp.Request r) throws Exception {
        return new RawHttp(API.port()).send(r);
    }

    private static RawHttp.Request post(String path, String json) {
        return new RawHttp.Request("POST", path)
                .header("Content-Type", "application/json")
                .body(json);
    }

    private static RawHttp.Request ops(RawHttp.Request r) {
        return r.header("Authorization", "Bearer " + OPERATOR);
    }

    /** A complete problem with this status, naming nothing of the server's insides. */
    private static JsonNode assertProblem(int status, RawHttp.Answer a) throws Exception {
        assertEquals(status, a.status(), a.describe());
        assertEquals("application/problem+json", a.mediaType(), a.describe());
        JsonNode p = Json.mapper().readTree(a.body());
        assertEquals(status, p.get("status").asInt(), a.describe());
        for (String field : new String[] {"type", "title", "detail", "code"}) {
            assertTrue(p.path(field).isTextual() && !p.path(field).asText().isBlank(), field + ": " + a.describe());
        }
        assertFalse(INTERNALS.matcher(a.bodyText()).find(), "internals in the body: " + a.describe());
        for (String[] h : a.headers()) {
            assertFalse(h[0].equalsIgnoreCase("Server"), "a Server header: " + h[1]);
            assertFalse(INTERNALS.matcher(h[1]).find(), "internals in " + h[0] + ": " + h[1]);
        }
        return p;
    }

    private static String writes() {
        return DB.scalar("SELECT (SELECT count(*) FROM orders) || '/' || (SELECT count(*) FROM message_outbox) || '/'"
                        + " || (SELECT count(*) FROM idempotency_keys) || '/' || (SELECT count(*) FROM ops_audit)"
                        + " || '/' || (SELECT coalesce(string_agg(status, ',' ORDER BY id), '') FROM message_outbox)")
                .toString();
    }

    @Test
    void aMalformedPercentEscapeIsA400ProblemNotTheServersHtmlPage() throws Exception {
        for (String target :
                List.of("/health/live?x=%ZZ", "/orders/%ZZ", "/ops/outbox?status=%", "/docs/a%G0", "/%%")) {
            RawHttp.Answer a = send(ops(new RawHttp.Request("GET", target)));
            JsonNode p = assertProblem(400, a);
            assertEquals("invalid_request_target", p.get("code").asText(), target);
            assertNotNull(a.header("X-Correlation-Id"), target);
        }
    }

    @Test
    void aNulInAnyStoredStringIsA400NamingTheFieldAndWritesNothing() throws Exception {
        String placed =
                API.client().post("/orders", OrderApiIT.ORDER).json().get("id").asText();
        assertEquals(
                200,
                API.client()
                        .post("/orders/" + placed + "/capture", "{\"amount\":\"42.50\"}")
                        .status());
        UUID parked = OpsApiIT.row("PARKED", "UNROUTABLE", "order.created", "nul", 1L);
        String nul = "a\\u0000b";
        Map<String, RawHttp.Request> requests = new java.util.LinkedHashMap<>();
        requests.put("customerId", post("/orders", OrderApiIT.ORDER.replace("cust-1", nul)));
        requests.put(
                "lines[0].sku",
                post(
                        "/orders",
                        OrderApiIT.ORDER.replaceFirst(
                                "\"sku\":\"[^\"]+\"", Matcher.quoteReplacement("\"sku\":\"" + nul + "\""))));
        requests.put(
                "carrier",
                post("/orders/" + placed + "/ship", "{\"carrier\":\"" + nul + "\",\"trackingNumber\":\"T1\"}"));
        requests.put(
                "trackingNumber",
                post("/orders/" + placed + "/ship", "{\"carrier\":\"DHL\",\"trackingNumber\":\"" + nul + "\"}"));
        requests.put("reason", post("/orders/" + placed + "/cancel", "{\"reason\":\"" + nul + "\"}"));
        for (String action : List.of("retry", "cancel", "replay", "release")) {
            requests.put(
                    "reason (" + action + ")",
                    ops(post("/ops/outbox/" + parked + "/" + action, "{\"reason\":\"" + nul + "\"}")));
        }
        requests.put(
                "messageType", ops(post("/ops/outbox/retry", "{\"messageType\":\"" + nul + "\",\"reason\":\"r\"}")));
        requests.put(
                "reason (bulk)",
                ops(post("/ops/outbox/retry", "{\"errorCode\":\"UNROUTABLE\",\"reason\":\"" + nul + "\"}")));
        requests.put(
                "aggregateId",
                ops(post(
                        "/ops/outbox/replay-aggregate",
                        "{\"aggregateType\":\"order\",\"aggregateId\":\"" + nul + "\"}")));
        requests.put(
                "aggregateType",
                ops(post("/ops/outbox/replay-aggregate", "{\"aggregateType\":\"" + nul + "\",\"aggregateId\":\"x\"}")));
        String before = writes();
        for (Map.Entry<String, RawHttp.Request> e : requests.entrySet()) {
            JsonNode p = assertProblem(400, send(e.getValue()));
            String field = e.getKey().replaceAll(" \\(.*\\)$", "");
            assertEquals(field, p.at("/errors/0/field").asText(), e.getKey() + ": " + p);
            assertTrue(p.at("/errors/0/message").asText().contains("NUL"), e.getKey() + ": " + p);
        }
        for (String query : List.of("messageType", "aggregateId", "correlationId", "tenantId", "aggregateType")) {
            JsonNode p = assertProblem(400, send(ops(new RawHttp.Request("GET", "/ops/outbox?" + query + "=a%00b"))));
            assertTrue(p.get("detail").asText().contains(query), p.toString());
        }
        assertEquals(before, writes(), "nothing written by a refused request");
    }

    @Test
    void unparseableMediaTypesAreProblemsAndUnsupportedOnesAre415And406() throws Exception {
        String order =
                API.client().post("/orders", OrderApiIT.ORDER).json().get("id").asText();
        for (String type : List.of("application/", ";;", "application/json; charset")) {
            JsonNode p = assertProblem(
                    400,
                    send(new RawHttp.Request("POST", "/orders")
                            .header("Content-Type", type)
                            .body("{}")));
            assertTrue(p.get("detail").asText().startsWith("Content-Type"), p.toString());
        }
        for (String accept : List.of("*/", "application/json;q=abc")) {
            JsonNode p =
                    assertProblem(400, send(new RawHttp.Request("GET", "/orders/" + order).header("Accept", accept)));
            assertTrue(p.get("detail").asText().startsWith("Accept"), p.toString());
        }
        assertProblem(
                415,
                send(new RawHttp.Request("POST", "/orders")
                        .header("Content-Type", "text/plain")
                        .body("{}")));
        assertProblem(406, send(new RawHttp.Request("GET", "/orders/" + order).header("Accept", "text/html")));
    }

    @Test
    void anOversizedHeadIs431AndAnOversizedRequestLine414() throws Exception {
        assertProblem(431, send(new RawHttp.Request("GET", "/health/live").header("X-Pad", "p".repeat(9_000))));
        RawHttp.Request many = new RawHttp.Request("GET", "/health/live");
        for (int i = 0; i < 120; i++) {
            many.header("X-Pad-" + i, "p");
        }
        assertProblem(431, send(many));
        assertProblem(414, send(new RawHttp.Request("GET", "/health/live?q=" + "q".repeat(9_000))));
        assertEquals(
                200,
                send(new RawHttp.Request("GET", "/health/live").header("X-Pad", "p".repeat(7_000)))
                        .status(),
                "a head within 8 KiB is read");
    }

    @Test
    void twoContentLengthsOrALengthBesideChunkedAre400() throws Exception {
        String before = writes();
        for (List<String> lengths : List.of(List.of("2", "2"), List.of("2", "3"))) {
            RawHttp.Request r = new RawHttp.Request("POST", "/orders").header("Content-Type", "application/json");
            lengths.forEach(l -> r.header("Content-Length", l));
            JsonNode p = assertProblem(400, send(r.body("{}")));
            assertEquals("invalid_framing", p.get("code").asText());
        }
        RawHttp.Request both = post("/orders", OrderApiIT.ORDER)
                .header("Content-Length", String.valueOf(OrderApiIT.ORDER.length()))
                .header("Transfer-Encoding", "chunked");
        assertEquals(
                "invalid_framing", assertProblem(400, send(both)).get("code").asText());
        assertProblem(
                400,
                send(new RawHttp.Request("POST", "/orders")
                        .header("Content-Length", "abc")
                        .body("{}")));
        assertEquals(before, writes());
    }

    @Test
    void aBodyShorterThanItsLengthGetsAProblemOrACleanCloseAndNoErrorIsLogged() throws Exception {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        root.addAppender(log);
        String before = writes();
        try {
            for (RawHttp.Request r : List.of(
                    post("/orders", "{\"customerId\":").header("Content-Length", "50"),
                    post("/orders", "{\"customerId\":")
                            .header("Content-Length", "50")
                            .header("Idempotency-Key", "short-" + UUID.randomUUID()),
                    new RawHttp.Request("POST", "/orders")
                            .header("Content-Type", "application/json")
                            .header("Transfer-Encoding", "chunked")
                            .body("5\r\n{\"cus\r\nZZ\r\n"))) {
                RawHttp.Answer a = send(r);
                if (!a.closedWithoutAnswer()) {
                    assertProblem(400, a);
                }
            }
            assertEquals(200, API.client().get("/health/live").status(), "the server carries on");
        } finally {
            root.detachAppender(log);
        }
        assertEquals(before, writes());
        List<String> bad = log.list.stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)
                        || (e.getLevel().isGreaterOrEqual(Level.WARN) && e.getThrowableProxy() != null))
                .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage())
                .toList();
        assertEquals(List.of(), bad, "a client that breaks off is not a server error");
    }

    @Test
    void aBodyOverTheLimitIs413BeforeTheBodyIsRead() throws Exception {
        String before = writes();
        // the length says too much and not a byte follows: only an answer given before reading ends this
        for (String path : List.of("/orders", "/ops/outbox/retry")) {
            RawHttp.Request declared = ops(new RawHttp.Request("POST", path)
                            .header("Content-Type", "application/json")
                            .header("Content-Length", String.valueOf(LIMIT + 1))
                            .header("Idempotency-Key", "big-" + UUID.randomUUID()))
                    .keepWriting();
            RawHttp.Answer a = send(declared);
            JsonNode p = assertProblem(413, a);
            assertEquals("payload_too_large", p.get("code").asText());
            assertTrue(p.get("detail").asText().contains(String.valueOf(LIMIT)), p.toString());
        }
        String big = "{\"customerId\":\"" + "c".repeat(LIMIT) + "\",\"currency\":\"EUR\",\"lines\":[]}";
        for (boolean idempotent : new boolean[] {false, true}) {
            RawHttp.Request chunked = new RawHttp.Request("POST", "/orders")
                    .header("Content-Type", "application/json")
                    .header("Transfer-Encoding", "chunked")
                    .body(chunk(big));
            if (idempotent) {
                chunked.header("Idempotency-Key", "chunked-" + UUID.randomUUID());
            }
            assertProblem(413, send(chunked));
        }
        assertEquals(before, writes());
        String within = "{\"customerId\":\"" + "c".repeat(100) + "\",\"currency\":\"EUR\",\"lines\":[],\"x\":\""
                + " ".repeat(LIMIT - 200) + "\"}";
        assertTrue(within.length() <= LIMIT);
        assertEquals(400, send(post("/orders", within)).status(), "a body within the limit is read (and validated)");
    }

    @Test
    void authenticationComesBeforeEverythingElseOnOps() throws Exception {
        UUID id = OpsApiIT.row("PARKED", "UNROUTABLE", "order.created", "auth", 1L);
        String before = writes();
        List<RawHttp.Request> unauthenticated = List.of(
                new RawHttp.Request("POST", "/ops/outbox/" + id + "/retry")
                        .header("Authorization", "Bearer wrong")
                        .header("Content-Type", "text/plain")
                        .body("retry it"),
                new RawHttp.Request("POST", "/ops/outbox/retry")
                        .header("Content-Type", ";;")
                        .body("{}"),
                new RawHttp.Request("POST", "/ops/outbox/retry")
                        .header("Content-Type", "application/json")
                        .header("Content-Length", String.valueOf(LIMIT + 1))
                        .keepWriting(),
                new RawHttp.Request("PUT", "/ops/outbox/" + id + "/retry").header("Authorization", "Bearer wrong"),
                new RawHttp.Request("GET", "/ops/nothing-here"));
        for (RawHttp.Request r : unauthenticated) {
            RawHttp.Answer a = send(r);
            assertProblem(401, a);
            assertEquals("Bearer realm=\"outbox-ops\"", a.header("WWW-Authenticate"), r.toString());
        }
        RawHttp.Answer readOnly = send(new RawHttp.Request("POST", "/ops/outbox/" + id + "/retry")
                .header("Authorization", "Bearer " + READER)
                .header("Content-Type", "text/plain")
                .body("x"));
        assertProblem(403, readOnly);
        assertEquals(before, writes());
        assertProblem(
                415,
                send(ops(new RawHttp.Request("POST", "/ops/outbox/" + id + "/retry")
                        .header("Content-Type", "text/plain")
                        .body("x"))));
    }

    @Test
    void placingCountsTheLinesBeforeReadingAnyOfThem() throws Exception {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 101; i++) {
            lines.append(i == 0 ? "" : ",").append("{}");
        }
        ApiClient.Reply r =
                API.client().post("/orders", "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[" + lines + "]}");
        assertEquals(400, r.status(), r.body());
        JsonNode errors = r.json().get("errors");
        assertEquals(1, errors.size(), "one violation, not one per line: " + r.body());
        assertEquals("lines", errors.get(0).get("field").asText());
        assertEquals(
                "must contain at most 100 lines", errors.get(0).get("message").asText());
    }

    @Test
    void aCursorOrAnInstantOutOfRangeIs400() throws Exception {
        String before = writes();
        for (String micros :
                List.of("9223372036854775807", "-9223372036854775808", "400000000000000000", "-70000000000000000")) {
            String cursor = Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString((micros + ":" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8));
            JsonNode p = assertProblem(400, send(ops(new RawHttp.Request("GET", "/ops/outbox?after=" + cursor))));
            assertEquals("after", p.at("/errors/0/field").asText(), p.toString());
        }
        for (String instant : List.of("%2B100000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z")) {
            JsonNode p =
                    assertProblem(400, send(ops(new RawHttp.Request("GET", "/ops/outbox?createdFrom=" + instant))));
            assertEquals("createdFrom", p.at("/errors/0/field").asText(), p.toString());
        }
        for (String instant : List.of("\"+100000-01-01T00:00:00Z\"", "0", "\"yesterday\"")) {
            JsonNode p = assertProblem(
                    400,
                    send(ops(post(
                            "/ops/outbox/retry",
                            "{\"createdFrom\":" + instant + ",\"dryRun\":true,\"reason\":\"r\"}"))));
            assertEquals("createdFrom", p.at("/errors/0/field").asText(), p.toString());
        }
        assertEquals(before, writes());
    }

    @Test
    void bulkRetryTakesOnlyAJsonBooleanForDryRun() throws Exception {
        UUID parked = OpsApiIT.row("PARKED", "UNROUTABLE", "order.created", "dry", 1L);
        String before = writes();
        for (String value : List.of("\"\"", "0", "-1", "1", "\"true\"", "\"false\"", "[]", "{}")) {
            JsonNode p = assertProblem(
                    400,
                    send(ops(post(
                            "/ops/outbox/retry",
                            "{\"errorCode\":\"UNROUTABLE\",\"dryRun\":" + value + ",\"reason\":\"r\"}"))));
            assertEquals("dryRun", p.at("/errors/0/field").asText(), value + ": " + p);
        }
        assertEquals(before, writes(), "no retry ran, no audit entry");
        assertEquals("PARKED", DB.scalar("SELECT status FROM message_outbox WHERE id = ?", parked));
        JsonNode dry = Json.mapper()
                .readTree(send(ops(post("/ops/outbox/retry", "{\"errorCode\":\"UNROUTABLE\",\"dryRun\":true}")))
                        .body());
        assertEquals(1, dry.get("matched").asLong());
        assertTrue(dry.get("dryRun").asBoolean());
    }

    @Test
    void trailingTextAfterTheJsonDocumentIsRefused() throws Exception {
        String before = writes();
        JsonNode p = assertProblem(400, send(post("/orders", OrderApiIT.ORDER + " {}")));
        assertEquals("validation_failed", p.get("code").asText());
        assertEquals("body", p.at("/errors/0/field").asText(), p.toString());
        assertEquals(before, writes());
    }

    /** One number: the code's, the document's and the README's longest Idempotency-Key agree, and hold. */
    @Test
    void theLongestIdempotencyKeyIsOneNumberInCodeDocumentAndReadme() throws Exception {
        int code = RequestMetadataFilter.MAX_IDEMPOTENCY_KEY_LENGTH;
        JsonNode doc = API.client().get("/openapi.json").json();
        assertEquals(
                code,
                doc.at("/components/parameters/IdempotencyKey/schema/maxLength").asInt(),
                "openapi.json");
        String readme = Files.readString(repositoryRoot().resolve("api/README.md"));
        Matcher m = Pattern.compile("`Idempotency-Key` \\(1–(\\d+) visible ASCII characters\\)")
                .matcher(readme);
        assertTrue(m.find(), "api/README.md states the key's length");
        assertEquals(code, Integer.parseInt(m.group(1)), "api/README.md");

        String longest = "k".repeat(code);
        RawHttp.Answer accepted = send(post("/orders", OrderApiIT.ORDER).header("Idempotency-Key", longest));
        assertEquals(201, accepted.status(), accepted.describe());
        JsonNode p =
                assertProblem(400, send(post("/orders", OrderApiIT.ORDER).header("Idempotency-Key", longest + "k")));
        assertEquals("Idempotency-Key", p.at("/errors/0/field").asText());
        assertNull(accepted.header("Idempotent-Replayed"));
    }

    private static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !(Files.exists(p.resolve("README.md")) && Files.isDirectory(p.resolve("api")))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException(
                    "not inside the repository: " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    private static String chunk(String body) {
        StringBuilder sb = new StringBuilder();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        for (int off = 0; off < bytes.length; off += 1000) {
            int n = Math.min(1000, bytes.length - off);
            sb.append(Integer.toHexString(n)).append("\r\n");
            sb.append(new String(bytes, off, n, StandardCharsets.UTF_8)).append("\r\n");
        }
        return sb.append("0\r\n\r\n").toString();
    }
}
