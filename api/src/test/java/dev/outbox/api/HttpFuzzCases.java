package dev.outbox.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.kernel.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The requests {@link HttpFuzzIT} sends, generated from {@code /openapi.json}: for every operation
 * its documented request first, then that request with one thing changed: one body field, query,
 * path or header parameter (each from a catalogue of hostile values), the body as a whole, the
 * framing, the media types, the method, the token; then seeded random combinations. Each case
 * says what its answer must be, beyond the invariants every answer has to keep.
 */
final class HttpFuzzCases {
    static final String MARKER = "__fuzz_mutation__";

    /** JSON with every non-ASCII character escaped, so lone surrogates survive the trip to bytes. */
    private static final com.fasterxml.jackson.databind.ObjectWriter ASCII_JSON = Json.mapper()
            .writer()
            .with(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII.mappedFeature());

    /** Hostile JSON values, written as raw JSON text so that {@code 1e400} stays what it is. */
    static final List<String> JSON_VALUES = List.of(
            "\"\"",
            "\" \"",
            "\"\\u0000\"",
            "\"a\\u0000b\"",
            "\"\\u0001\\u001f\\u007f\\u0085\"",
            "\"\\ud83d\\ude00\"",
            "\"\\ud800\"",
            "\"x\\udc00\"",
            "\"\\u202e\\ufeff\"",
            "\"" + "x".repeat(70_000) + "\"",
            "\"" + "y".repeat(256) + "\"",
            "\"<script>alert(1)</script>\"",
            "\"' OR 1=1 --\"",
            "\"%00\"",
            "\"null\"",
            "\"true\"",
            "\"2026-11-30T09:00:00Z\"",
            "\"+100000-01-01T00:00:00Z\"",
            "0",
            "-1",
            "1.5",
            "-0.0",
            "1e400",
            "99999999999999999999",
            "2147483648",
            "-9223372036854775809",
            "true",
            "false",
            "null",
            "[]",
            "{}",
            "[\"a\"]",
            "{\"a\":1}");

    /** Query and path values as they go on the wire: some %-encoded, some deliberately broken. */
    static final List<String> WIRE_VALUES = List.of(
            "%00",
            "a%00b",
            "%01%1F%7F",
            "%C3%28",
            "%ED%A0%80",
            "%F0%9F%98%80",
            "%E2%80%AE",
            "x".repeat(4_000),
            "",
            "-1",
            "0",
            "1.5",
            "99999999999999999999",
            "true",
            "%20",
            "%27%20OR%201%3D1--",
            "+",
            "null",
            "..",
            "%2e%2e",
            "%2F",
            "a;b=c");

    /** Values that are not valid %-encoding at all: the server must answer 400. */
    static final List<String> MALFORMED_ESCAPES = List.of("%ZZ", "%", "%e", "a%G0", "%%");

    static final List<byte[]> HEADER_VALUES = List.of(
            bytes(""),
            bytes(" "),
            new byte[] {0},
            new byte[] {'a', 0, 'b'},
            new byte[] {1, 0x1f, 0x7f},
            "é".getBytes(StandardCharsets.UTF_8),
            "😀".getBytes(StandardCharsets.UTF_8),
            new byte[] {(byte) 0xff, (byte) 0xfe},
            bytes("k".repeat(199)),
            bytes("k".repeat(200)),
            bytes("k".repeat(201)),
            bytes("k".repeat(255)),
            bytes("k".repeat(256)),
            bytes("k".repeat(4_000)),
            bytes("a,b"),
            bytes("<script>"),
            bytes("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
            bytes("00-00000000000000000000000000000000-0000000000000000-01"));

    static final List<String> UNPARSEABLE_CONTENT_TYPES =
            List.of("application/", "/", ";;", "application/json; charset", "json");
    static final List<String> UNSUPPORTED_CONTENT_TYPES =
            List.of("text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data");
    static final List<String> UNPARSEABLE_ACCEPTS =
            List.of("*/", ";;;", "application/json;q=abc", "application/json, */", "/json");
    static final List<String> OTHER_ACCEPTS = List.of("text/html", "application/xml", "text/plain", "*/*;q=0.1");

    static final Set<String> WRONG_METHODS = new TreeSet<>(List.of("PUT", "DELETE", "PATCH", "FOO"));

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What a case's answer must be, beyond the invariants every answer keeps. */
    record Expect(String what, Set<Integer> statuses, boolean anyClientError, boolean success) {
        static final Expect ANY = new Expect("no 5xx", Set.of(), false, false);
        static final Expect SUCCESS = new Expect("2xx", Set.of(), false, true);
        static final Expect REJECT = new Expect("4xx", Set.of(), true, false);

        static Expect status(Integer... codes) {
            return new Expect(List.of(codes).toString(), Set.of(codes), false, false);
        }

        boolean accepts(int status) {
            if (success) {
                return status >= 200 && status < 300;
            }
            if (anyClientError) {
                return status >= 400 && status < 500;
            }
            return statuses.isEmpty() || statuses.contains(status);
        }
    }

    /**
     * One generated request: how to change the operation's documented request, and what the answer
     * must be. {@code mayClose}: closing without an answer is a clean outcome too (the client broke
     * the framing).
     */
    record Case(
            HttpFuzzIT.Operation op,
            String family,
            String label,
            Consumer<FuzzRequest> mutation,
            Expect expect,
            boolean mayClose,
            boolean documentedMethod) {}

    private final long maxBody;
    private final List<HttpFuzzIT.Operation> all;
    private final Random random;
    private final String operatorToken;
    private final String readToken;

    HttpFuzzCases(List<HttpFuzzIT.Operation> all, long maxBody, long seed, String operatorToken, String readToken) {
        this.all = List.copyOf(all);
        this.maxBody = maxBody;
        this.random = new Random(seed);
        this.operatorToken = operatorToken;
        this.readToken = readToken;
    }

    List<Case> casesFor(HttpFuzzIT.Operation op) {
        List<Case> cases = new ArrayList<>();
        cases.add(new Case(op, "documented", "the documented request", r -> {}, Expect.SUCCESS, false, true));
        if (op.bodySchema() != null) {
            bodyFields(op, cases);
            wholeBodies(op, cases);
        }
        queryParameters(op, cases);
        pathParameters(op, cases);
        headerParameters(op, cases);
        mediaTypes(op, cases);
        framing(op, cases);
        heads(op, cases);
        methods(op, cases);
        if (op.secured()) {
            tokens(op, cases);
        }
        randomCombinations(op, cases, 12);
        return cases;
    }

    // ------------------------------------------------------------------ body

    private void bodyFields(HttpFuzzIT.Operation op, List<Case> cases) {
        for (List<Object> path : fieldPaths(op.bodySchema(), List.of())) {
            for (String value : JSON_VALUES) {
                String label = "body " + render(path) + " = " + abbreviate(value);
                cases.add(bodyCase(op, "body field", label, path, value));
            }
            if (path.size() == 1) {
                cases.add(removeField(op, (String) path.get(0)));
            }
        }
        cases.add(bodyCase(op, "body field", "an unknown field", List.of("unexpectedField"), "1"));
    }

    private Case bodyCase(HttpFuzzIT.Operation op, String family, String label, List<Object> path, String rawValue) {
        String body = withValue(op.validBody(), path, rawValue);
        return new Case(op, family, label, r -> r.body(body), HttpFuzzIT.expectForBody(op, body), false, true);
    }

    private Case removeField(HttpFuzzIT.Operation op, String field) {
        ObjectNode copy = (ObjectNode) op.validBody().deepCopy();
        copy.remove(field);
        String body = copy.toString();
        return new Case(
                op,
                "body field",
                "body without " + field,
                r -> r.body(body),
                HttpFuzzIT.expectForBody(op, body),
                false,
                true);
    }

    private void wholeBodies(HttpFuzzIT.Operation op, List<Case> cases) {
        String valid = op.validBody().toString();
        Map<String, byte[]> invalid = new java.util.LinkedHashMap<>();
        invalid.put("empty body", new byte[0]);
        invalid.put("{", bytes("{"));
        invalid.put("{\"a\":", bytes("{\"a\":"));
        invalid.put("[]", bytes("[]"));
        invalid.put("null", bytes("null"));
        invalid.put("a JSON string", bytes("\"x\""));
        invalid.put("a JSON number", bytes("1"));
        invalid.put("two documents", bytes(valid + valid));
        invalid.put("invalid UTF-8", concat(bytes("{\"reason\":\"a"), new byte[] {(byte) 0xc3, 0x28}, bytes("\"}")));
        invalid.put("a raw NUL byte in a string", concat(bytes("{\"reason\":\"a"), new byte[] {0}, bytes("\"}")));
        invalid.put("nested 5,000 deep", bytes("[".repeat(5_000) + "]".repeat(5_000)));
        invalid.put("an object nested 5,000 deep", bytes("{\"a\":".repeat(5_000) + "1" + "}".repeat(5_000)));
        invalid.put("a 900 KiB string", bytes("{\"reason\":\"" + "r".repeat(900 * 1024) + "\"}"));
        invalid.put("10,000 lines", bytes(manyLines(10_000)));
        for (Map.Entry<String, byte[]> e : invalid.entrySet()) {
            byte[] body = e.getValue();
            cases.add(new Case(
                    op,
                    "whole body",
                    e.getKey(),
                    r -> r.body = body,
                    HttpFuzzIT.expectForBody(op, new String(body, StandardCharsets.UTF_8)),
                    false,
                    true));
        }
        byte[] bom = concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, bytes(valid));
        cases.add(new Case(op, "whole body", "a byte order mark first", r -> r.body = bom, Expect.ANY, false, true));
        // JSON outside a closed system is UTF-8 (RFC 8259); Jackson also detects UTF-16, which is harmless
        byte[] utf16 = valid.getBytes(StandardCharsets.UTF_16);
        cases.add(new Case(op, "whole body", "UTF-16", r -> r.body = utf16, Expect.ANY, false, true));
    }

    private static String manyLines(int n) {
        StringBuilder sb = new StringBuilder("{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append("{}");
        }
        return sb.append("]}").toString();
    }

    // ------------------------------------------------------------ parameters

    private void queryParameters(HttpFuzzIT.Operation op, List<Case> cases) {
        for (JsonNode p : op.parameters()) {
            if (!"query".equals(p.path("in").asText())) {
                continue;
            }
            String name = p.get("name").asText();
            for (String value : WIRE_VALUES) {
                cases.add(new Case(
                        op,
                        "query parameter",
                        name + "=" + abbreviate(value),
                        r -> setQuery(r, name, value),
                        Expect.ANY,
                        false,
                        true));
            }
            for (String value : MALFORMED_ESCAPES) {
                cases.add(new Case(
                        op,
                        "query parameter",
                        name + "=" + value,
                        r -> setQuery(r, name, value),
                        Expect.status(400),
                        false,
                        true));
            }
            cases.add(new Case(
                    op,
                    "query parameter",
                    name + " twice",
                    r -> {
                        r.query.add(new String[] {name, "a"});
                        r.query.add(new String[] {name, "b"});
                    },
                    Expect.ANY,
                    false,
                    true));
        }
        for (String q : List.of("x=%ZZ", "%ZZ=1", "x=%")) {
            cases.add(new Case(op, "query string", "?" + q, r -> r.rawQuery = q, Expect.status(400), false, true));
        }
        for (String q : List.of("%00=1", "x=%00", "x=%ED%A0%80", "&&&", "=")) {
            cases.add(new Case(op, "query string", "?" + q, r -> r.rawQuery = q, Expect.ANY, false, true));
        }
        if (op.template().equals("/ops/outbox")) {
            // keyset cursors this API never issued: garbage, and timestamps PostgreSQL cannot hold
            for (String cursor : List.of(
                    cursor(Long.MAX_VALUE + ":" + java.util.UUID.randomUUID()),
                    cursor(Long.MIN_VALUE + ":" + java.util.UUID.randomUUID()),
                    cursor("400000000000000000:" + java.util.UUID.randomUUID()),
                    cursor("-70000000000000000:" + java.util.UUID.randomUUID()),
                    cursor("1:not-a-uuid"),
                    cursor("abc"),
                    "!!!")) {
                cases.add(new Case(
                        op,
                        "query parameter",
                        "after=" + abbreviate(cursor),
                        r -> setQuery(r, "after", cursor),
                        Expect.status(400),
                        false,
                        true));
            }
        }
    }

    private static String cursor(String text) {
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(text));
    }

    private static void setQuery(FuzzRequest r, String name, String value) {
        r.query.removeIf(q -> q[0].equals(name));
        r.query.add(new String[] {name, value});
    }

    private void pathParameters(HttpFuzzIT.Operation op, List<Case> cases) {
        for (JsonNode p : op.parameters()) {
            if (!"path".equals(p.path("in").asText())) {
                continue;
            }
            String name = p.get("name").asText();
            List<String> values = new ArrayList<>(WIRE_VALUES);
            values.remove("");
            values.add("00000000-0000-0000-0000-000000000000");
            values.add("F" + java.util.UUID.randomUUID().toString().substring(1).toUpperCase());
            values.add(java.util.UUID.randomUUID() + "%00");
            for (String value : values) {
                cases.add(new Case(
                        op,
                        "path parameter",
                        name + "=" + abbreviate(value),
                        r -> r.pathValues.put(name, value),
                        Expect.ANY,
                        false,
                        true));
            }
            for (String value : MALFORMED_ESCAPES) {
                cases.add(new Case(
                        op,
                        "path parameter",
                        name + "=" + value,
                        r -> r.pathValues.put(name, value),
                        Expect.status(400),
                        false,
                        true));
            }
        }
    }

    private void headerParameters(HttpFuzzIT.Operation op, List<Case> cases) {
        List<JsonNode> headers = new ArrayList<>();
        for (JsonNode p : op.parameters()) {
            if ("header".equals(p.path("in").asText())) {
                headers.add(p);
            }
        }
        if (op.secured()) {
            headers.add(Json.mapper().createObjectNode().put("name", "X-Operator"));
        }
        for (JsonNode p : headers) {
            String name = p.get("name").asText();
            for (byte[] value : HEADER_VALUES) {
                cases.add(new Case(
                        op,
                        "header parameter",
                        name + ": " + abbreviate(new String(value, StandardCharsets.ISO_8859_1)),
                        r -> r.header(name, value),
                        HttpFuzzIT.expectForHeader(p, value),
                        false,
                        true));
            }
            cases.add(new Case(
                    op,
                    "header parameter",
                    name + " twice",
                    r -> r.header(name, "first").header(name, "second"),
                    Expect.ANY,
                    false,
                    true));
        }
    }

    // -------------------------------------------------------------- protocol

    private void mediaTypes(HttpFuzzIT.Operation op, List<Case> cases) {
        boolean post = op.method().equals("POST");
        for (String type : UNPARSEABLE_CONTENT_TYPES) {
            cases.add(new Case(op, "content type", type, r -> r.contentType = type, Expect.status(400), false, true));
        }
        for (String type : UNSUPPORTED_CONTENT_TYPES) {
            cases.add(new Case(
                    op,
                    "content type",
                    type,
                    r -> r.contentType = type,
                    post ? Expect.status(415) : Expect.ANY,
                    false,
                    true));
        }
        cases.add(new Case(
                op,
                "content type",
                "none",
                r -> r.contentType = null,
                post ? Expect.status(415) : Expect.ANY,
                false,
                true));
        cases.add(new Case(
                op,
                "content type",
                "a NUL byte in it",
                r -> {
                    r.contentType = null;
                    r.header("Content-Type", new byte[] {'a', 'p', 'p', 0, '/', 'j'});
                },
                Expect.status(400),
                false,
                true));
        for (String accept : UNPARSEABLE_ACCEPTS) {
            cases.add(new Case(op, "accept", accept, r -> r.header("Accept", accept), Expect.status(400), false, true));
        }
        for (String accept : OTHER_ACCEPTS) {
            cases.add(new Case(op, "accept", accept, r -> r.header("Accept", accept), Expect.ANY, false, true));
        }
    }

    private void framing(HttpFuzzIT.Operation op, List<Case> cases) {
        cases.add(new Case(
                op,
                "framing",
                "two equal Content-Length",
                r -> withBody(r, length -> r.contentLengths = List.of(length, length)),
                Expect.status(400),
                false,
                true));
        cases.add(new Case(
                op,
                "framing",
                "two different Content-Length",
                r -> withBody(r, length -> r.contentLengths = List.of(length, "1")),
                Expect.status(400),
                false,
                true));
        cases.add(new Case(
                op,
                "framing",
                "Content-Length and chunked",
                r -> withBody(r, length -> {
                    r.contentLengths = List.of(length);
                    r.chunked = true;
                }),
                Expect.status(400),
                false,
                true));
        for (String bad : List.of("abc", "-1", "1.5", "99999999999999999999999", "0x10", " ")) {
            cases.add(new Case(
                    op,
                    "framing",
                    "Content-Length: " + bad,
                    r -> withBody(r, length -> r.contentLengths = List.of(bad)),
                    Expect.status(400),
                    true,
                    true));
        }
        // a POST reads its body and must refuse a broken one; a GET never reads it and may answer
        Expect broken = op.method().equals("POST") ? Expect.REJECT : Expect.ANY;
        cases.add(new Case(
                op,
                "framing",
                "a body 50 bytes shorter than its Content-Length",
                r -> withBody(r, length -> r.contentLengths = List.of(String.valueOf(Long.parseLong(length) + 50))),
                broken,
                true,
                true));
        cases.add(new Case(
                op,
                "framing",
                "a broken chunk",
                r -> {
                    withBody(r, length -> {});
                    r.chunked = false;
                    r.header("Transfer-Encoding", "chunked");
                    r.body = bytes("5\r\n{\"cus\r\nZZ\r\n");
                },
                broken,
                true,
                true));
        cases.add(new Case(
                op,
                "body limit",
                "Content-Length one byte over the limit, body not sent",
                r -> {
                    withBody(r, length -> {});
                    r.body = new byte[1024];
                    r.contentLengths = List.of(String.valueOf(maxBody + 1));
                    r.halfClose = false;
                },
                Expect.status(413),
                false,
                true));
        // past an int: Jersey's own getLength() throws for these, which once answered 500
        for (String huge : List.of("2147483648", "9223372036854775807")) {
            cases.add(new Case(
                    op,
                    "body limit",
                    "Content-Length " + huge + ", body not sent",
                    r -> {
                        withBody(r, length -> {});
                        r.body = new byte[1024];
                        r.contentLengths = List.of(huge);
                        r.halfClose = false;
                    },
                    Expect.status(413),
                    false,
                    true));
        }
        if (!op.method().equals("POST")) {
            return; // a GET never reads a body: only the declared length above concerns it
        }
        cases.add(new Case(
                op,
                "body limit",
                "chunked body 64 KiB over the limit",
                r -> {
                    withBody(r, length -> {});
                    r.body = oversizedJson();
                    r.chunked = true;
                },
                Expect.status(413),
                false,
                true));
        cases.add(new Case(
                op,
                "body limit",
                "Content-Length body 64 KiB over the limit, all sent",
                r -> {
                    withBody(r, length -> {});
                    r.body = oversizedJson();
                },
                Expect.status(413),
                false,
                true));
    }

    private byte[] oversizedJson() {
        int n = (int) maxBody + 64 * 1024;
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) 'r');
        byte[] head = bytes("{\"reason\":\"");
        System.arraycopy(head, 0, b, 0, head.length);
        b[n - 2] = '"';
        b[n - 1] = '}';
        return b;
    }

    /** Gives a request a JSON body (its documented one, or {@code {}}) and its length. */
    private static void withBody(FuzzRequest r, Consumer<String> length) {
        if (r.body == null) {
            r.body("{}");
            r.contentType = "application/json";
        }
        length.accept(String.valueOf(r.body.length));
    }

    private void heads(HttpFuzzIT.Operation op, List<Case> cases) {
        cases.add(new Case(
                op,
                "head size",
                "one 9,000-byte header",
                r -> r.header("X-Fuzz", "h".repeat(9_000)),
                Expect.status(431),
                false,
                true));
        cases.add(new Case(
                op,
                "head size",
                "120 headers",
                r -> {
                    for (int i = 0; i < 120; i++) {
                        r.header("X-Fuzz-" + i, "v");
                    }
                },
                Expect.status(431),
                false,
                true));
        cases.add(new Case(
                op,
                "head size",
                "a 9,000-character request target",
                r -> r.rawQuery = "x=" + "q".repeat(9_000),
                Expect.status(414, 431),
                false,
                true));
        cases.add(new Case(op, "head", "no Host header", r -> r.withHost = false, Expect.status(400), false, true));
        for (String host : List.of("a b", "[", "a:b:c", "%00", "h".repeat(300), "")) {
            cases.add(new Case(op, "head", "Host: " + abbreviate(host), r -> r.host = host, Expect.ANY, false, true));
        }
        for (String version : List.of("HTTP/2.0", "HTTP/1.2", "HTTP/9.9", "HTTX/1.1")) {
            cases.add(new Case(
                    op,
                    "head",
                    "version " + version,
                    r -> r.requestLine = r.method + " " + r.target() + " " + version,
                    Expect.status(400),
                    true,
                    true));
        }
        cases.add(new Case(
                op,
                "head",
                "HTTP/1.0",
                r -> r.requestLine = r.method + " " + r.target() + " HTTP/1.0",
                Expect.ANY,
                false,
                true));
        cases.add(new Case(
                op,
                "head",
                "a raw control byte in the target",
                r -> r.requestLine = r.method + " " + r.target() + "\u0001 HTTP/1.1",
                Expect.ANY,
                true,
                true));
    }

    private void methods(HttpFuzzIT.Operation op, List<Case> cases) {
        Set<String> wrong = new TreeSet<>(WRONG_METHODS);
        wrong.add(op.method().equals("GET") ? "POST" : "GET");
        wrong.removeAll(op.methodsOnPath());
        for (String method : wrong) {
            // GET /ops/outbox/retry is GET /ops/outbox/{id} with the id "retry": not a wrong method
            Expect expect = servedByAnother(op, method) ? Expect.ANY : Expect.status(405);
            cases.add(new Case(op, "method", method, r -> r.method = method, expect, false, false));
        }
        for (String method : List.of("HEAD", "OPTIONS", "TRACE")) {
            cases.add(new Case(op, "method", method, r -> r.method = method, Expect.ANY, false, false));
        }
    }

    private boolean servedByAnother(HttpFuzzIT.Operation op, String method) {
        String concrete = op.template().replaceAll("\\{[^}]+}", "x");
        for (HttpFuzzIT.Operation other : all) {
            if (other.method().equals(method)
                    && concrete.matches(other.template().replaceAll("\\{[^}]+}", "[^/]+"))) {
                return true;
            }
        }
        return false;
    }

    private void tokens(HttpFuzzIT.Operation op, List<Case> cases) {
        boolean write = op.method().equals("POST");
        Map<String, byte[]> unauthenticated = new java.util.LinkedHashMap<>();
        unauthenticated.put("no Authorization", null);
        unauthenticated.put("Bearer without a token", bytes("Bearer"));
        unauthenticated.put("a wrong token", bytes("Bearer wrong-" + operatorToken));
        unauthenticated.put("Basic with the token", bytes("Basic " + operatorToken));
        unauthenticated.put("the token with a NUL", concat(bytes("Bearer " + operatorToken), new byte[] {0}));
        unauthenticated.put("the token twice", bytes("Bearer " + operatorToken + operatorToken));
        for (Map.Entry<String, byte[]> e : unauthenticated.entrySet()) {
            cases.add(new Case(
                    op, "token", e.getKey(), r -> authorize(r, e.getValue()), Expect.status(401), false, true));
        }
        cases.add(new Case(
                op,
                "token",
                "a wrong token and a text/plain body",
                r -> {
                    authorize(r, bytes("Bearer wrong"));
                    r.contentType = "text/plain";
                    r.body("retry please");
                },
                Expect.status(401),
                false,
                true));
        cases.add(new Case(
                op,
                "token",
                "no token and an unparseable Content-Type",
                r -> {
                    authorize(r, null);
                    r.contentType = ";;";
                },
                Expect.status(401),
                false,
                true));
        cases.add(new Case(
                op,
                "token",
                "no token and a body over the limit",
                r -> {
                    authorize(r, null);
                    withBody(r, length -> {});
                    r.body = new byte[16];
                    r.contentLengths = List.of(String.valueOf(maxBody + 1));
                    r.halfClose = false;
                },
                Expect.status(401),
                false,
                true));
        cases.add(new Case(
                op,
                "token",
                "the read-only token",
                r -> authorize(r, bytes("Bearer " + readToken)),
                write ? Expect.status(403) : Expect.ANY,
                false,
                true));
        cases.add(new Case(
                op,
                "token",
                "the read-only token and a text/plain body",
                r -> {
                    authorize(r, bytes("Bearer " + readToken));
                    r.contentType = "text/plain";
                    r.body("x");
                },
                write ? Expect.status(403) : Expect.ANY,
                false,
                true));
    }

    private static void authorize(FuzzRequest r, byte[] value) {
        r.removeHeader("Authorization");
        if (value != null) {
            r.header("Authorization", value);
        }
    }

    // ---------------------------------------------------------------- random

    /** Seeded: two changes at once, with text drawn from every plane and every control character. */
    private void randomCombinations(HttpFuzzIT.Operation op, List<Case> cases, int n) {
        List<List<Object>> fields = op.bodySchema() == null ? List.of() : fieldPaths(op.bodySchema(), List.of());
        List<String> queryNames = new ArrayList<>();
        for (JsonNode p : op.parameters()) {
            if ("query".equals(p.path("in").asText())) {
                queryNames.add(p.get("name").asText());
            }
        }
        for (int i = 0; i < n; i++) {
            String text = randomText();
            String other = JSON_VALUES.get(random.nextInt(JSON_VALUES.size()));
            if (!fields.isEmpty()) {
                List<Object> a = fields.get(random.nextInt(fields.size()));
                List<Object> b = fields.get(random.nextInt(fields.size()));
                String body = withValue(op.validBody(), a, ascii(text));
                if (!startsWith(b, a) && !startsWith(a, b)) {
                    body = withValue(readTree(body), b, other);
                }
                String finalBody = body;
                cases.add(new Case(
                        op,
                        "random",
                        "body " + render(a) + " and " + render(b),
                        r -> r.body(finalBody),
                        HttpFuzzIT.expectForBody(op, finalBody),
                        false,
                        true));
            } else if (!queryNames.isEmpty()) {
                String name = queryNames.get(random.nextInt(queryNames.size()));
                String value = percentEncode(text);
                cases.add(new Case(
                        op, "random", "query " + name, r -> setQuery(r, name, value), Expect.ANY, false, true));
            } else {
                String value = percentEncode(text);
                cases.add(new Case(
                        op, "random", "query string", r -> r.rawQuery = "q=" + value, Expect.ANY, false, true));
            }
        }
    }

    /**
     * Every UTF-16 unit as UTF-8 %-escapes, a lone surrogate as its three-byte (CESU) form:
     * {@code URLEncoder} would quietly turn it into {@code ?}.
     */
    static String percentEncode(String text) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            byte[] utf8;
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                utf8 = text.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                i++;
            } else if (Character.isSurrogate(c)) {
                utf8 = new byte[] {
                    (byte) (0xE0 | (c >> 12)), (byte) (0x80 | ((c >> 6) & 0x3F)), (byte) (0x80 | (c & 0x3F))
                };
            } else {
                utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
            }
            for (byte b : utf8) {
                sb.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return sb.toString();
    }

    private static boolean startsWith(List<Object> path, List<Object> prefix) {
        return path.size() >= prefix.size() && path.subList(0, prefix.size()).equals(prefix);
    }

    /** Text from every range a client can send: controls, NUL, BMP, astral, lone surrogates, long runs. */
    String randomText() {
        int length = switch (random.nextInt(4)) {
            case 0 -> random.nextInt(4);
            case 1 -> random.nextInt(64);
            case 2 -> 200 + random.nextInt(400);
            default -> random.nextInt(3_000);
        };
        StringBuilder sb = new StringBuilder();
        while (sb.length() < length) {
            switch (random.nextInt(8)) {
                case 0 -> sb.append((char) random.nextInt(0x20));
                case 1 -> sb.append('\0');
                case 2 -> sb.appendCodePoint(0x10000 + random.nextInt(0x10FFFF - 0x10000));
                case 3 -> sb.append((char) (0xD800 + random.nextInt(0x800)));
                case 4 -> sb.append((char) (0x80 + random.nextInt(0xD800 - 0x80)));
                default -> sb.append((char) (0x20 + random.nextInt(0x5f)));
            }
        }
        return sb.toString();
    }

    // --------------------------------------------------------------- helpers

    /** Every field of a request schema: top-level properties, and those of the first array item. */
    static List<List<Object>> fieldPaths(JsonNode schema, List<Object> prefix) {
        List<List<Object>> out = new ArrayList<>();
        JsonNode properties = schema.path("properties");
        Iterator<Map.Entry<String, JsonNode>> it = properties.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> p = it.next();
            List<Object> path = new ArrayList<>(prefix);
            path.add(p.getKey());
            out.add(path);
            JsonNode items = p.getValue().path("items");
            if ("array".equals(p.getValue().path("type").asText()) && items.isObject()) {
                List<Object> element = new ArrayList<>(path);
                element.add(0);
                out.add(element);
                out.addAll(fieldPaths(items, element));
            }
        }
        return out;
    }

    /** The body with the value at {@code path} replaced by raw JSON text. */
    static String withValue(JsonNode body, List<Object> path, String rawJson) {
        JsonNode copy = body.deepCopy();
        JsonNode parent = copy;
        for (int i = 0; i < path.size() - 1; i++) {
            Object step = path.get(i);
            parent = step instanceof Integer index ? parent.get(index) : parent.get((String) step);
        }
        Object last = path.get(path.size() - 1);
        if (last instanceof Integer index) {
            ((ArrayNode) parent).set(index, Json.mapper().getNodeFactory().textNode(MARKER));
        } else {
            ((ObjectNode) parent).put((String) last, MARKER);
        }
        return ascii(copy).replace("\"" + MARKER + "\"", rawJson);
    }

    static String ascii(Object value) {
        try {
            return ASCII_JSON.writeValueAsString(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode readTree(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static String render(List<Object> path) {
        StringBuilder sb = new StringBuilder();
        for (Object step : path) {
            if (step instanceof Integer i) {
                sb.append('[').append(i).append(']');
            } else {
                sb.append(sb.length() == 0 ? "" : ".").append(step);
            }
        }
        return sb.toString();
    }

    static String abbreviate(String s) {
        String shown = s.replace("\0", "\\0");
        return shown.length() > 40 ? shown.substring(0, 20) + "...(" + shown.length() + " chars)" : shown;
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
