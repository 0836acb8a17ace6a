package dev.outbox.sample.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Deliveries nobody here would write: every AMQP field type in every place, values out of every
 * range, properties missing, bodies that are not what the contract says. Each carries
 * {@code appId = probe-N} so it can be found in the dead-letter queue.
 */
final class MalformedDeliveries {
    /** One delivery to publish straight to a queue. */
    record Probe(String name, AMQP.BasicProperties properties, byte[] body) {}

    private static final String CAPTURE_BODY = "{\"orderId\":\"" + UUID.randomUUID() + "\",\"paymentId\":\""
            + UUID.randomUUID() + "\",\"amount\":\"10.00\",\"currency\":\"EUR\"}";

    private final List<Probe> probes = new ArrayList<>();
    private final int frameMax;

    private MalformedDeliveries(int frameMax) {
        this.frameMax = frameMax;
    }

    /** The hand-written cases, then {@code randomCases} from a generator seeded with {@code seed}. */
    static List<Probe> all(int frameMax, long seed, int randomCases) {
        MalformedDeliveries m = new MalformedDeliveries(frameMax);
        m.handWritten();
        m.random(new Random(seed), randomCases);
        return m.probes;
    }

    private static Map<String, Object> contract(String type, String aggregateId, Object version) {
        Map<String, Object> h = new HashMap<>();
        h.put("message_type", type);
        h.put("message_version", 1);
        h.put("aggregate_type", "order");
        h.put("aggregate_id", aggregateId);
        h.put("aggregate_version", version);
        return h;
    }

    private static Map<String, Object> capture(Object version) {
        return contract("payment.captured", UUID.randomUUID().toString(), version);
    }

    private static Map<String, Object> with(Map<String, Object> base, Object... keyValues) {
        Map<String, Object> h = new HashMap<>(base);
        for (int i = 0; i < keyValues.length; i += 2) {
            h.put((String) keyValues[i], keyValues[i + 1]);
        }
        return h;
    }

    private AMQP.BasicProperties.Builder props(String messageId, String type, Map<String, Object> headers) {
        return new AMQP.BasicProperties.Builder()
                .messageId(messageId)
                .type(type)
                .headers(headers)
                .contentType("application/json")
                .deliveryMode(2)
                .appId("probe-" + probes.size());
    }

    private void add(String name, AMQP.BasicProperties.Builder props, byte[] body) {
        probes.add(new Probe(name, props.appId("probe-" + probes.size()).build(), body));
    }

    private void add(String name, String messageId, String type, Map<String, Object> headers, String body) {
        add(name, props(messageId, type, headers), body.getBytes(StandardCharsets.UTF_8));
    }

    private static String id() {
        return UUID.randomUUID().toString();
    }

    /**
     * A body that honours the contract of {@code type} for the aggregate its headers name: the
     * contract's first example, with the aggregate id replaced. The probes whose headers are odd
     * but allowed (extra tables of every field type) must otherwise be valid, or the wire contract
     * check would refuse them before anything about their headers is tried.
     */
    static String validBody(String type, Map<String, Object> headers) {
        MessageContract c = MessageContracts.onClasspath().require(type, 1);
        ObjectNode body = c.examples().get(0).deepCopy();
        body.put(c.aggregateIdProperty(), String.valueOf(headers.get("aggregate_id")));
        return body.toString();
    }

    /** A valid message of {@code type} whose headers carry more than the contract's. */
    private void addValid(String name, String type, Map<String, Object> headers) {
        add(name, id(), type, headers, validBody(type, headers));
    }

    /** A value of every type amqp-client writes into a field table. */
    static Map<String, Object> everyFieldType() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("longstr", LongStringHelper.asLongString("text"));
        m.put("longstr_bad_utf8", LongStringHelper.asLongString(new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1}));
        m.put("int", 42);
        m.put("long", Long.MAX_VALUE);
        m.put("short", (short) -7);
        m.put("byte", (byte) 3);
        m.put("double", 1.5d);
        m.put("double_max", Double.MAX_VALUE);
        m.put("double_tiny", -Double.MIN_VALUE);
        m.put("float", 2.5f);
        m.put("float_max", Float.MAX_VALUE);
        m.put("decimal", new BigDecimal("12345.6789"));
        m.put("bool", true);
        m.put("timestamp", new Date(0));
        m.put("bytes", new byte[] {0, (byte) 0x80, (byte) 0xff});
        m.put("void", null);
        m.put("string_nul", "a\u0000b");
        m.put("list", new ArrayList<>(Arrays.asList(1, "x", null, new Date(1000), new byte[] {1}, List.of())));
        return m;
    }

    private void handWritten() {
        // null (AMQP void) header values, where the contract looks and where it does not
        add("null aggregate_version", id(), "payment.captured", capture(null), CAPTURE_BODY);
        add("null extra header", id(), "payment.captured", with(capture(1L), "extra", null), CAPTURE_BODY);
        Map<String, Object> allNull = new HashMap<>();
        for (String k : List.of(
                "message_type",
                "message_version",
                "aggregate_type",
                "aggregate_id",
                "aggregate_version",
                "tenant_id",
                "traceparent")) {
            allNull.put(k, null);
        }
        add("every contract header null", id(), "payment.captured", allNull, CAPTURE_BODY);
        add("null headers, no type property", id(), null, allNull, CAPTURE_BODY);

        // nested tables and arrays with every field type, in a message that is otherwise fine
        addValid(
                "nested table of every type",
                "order.created",
                with(contract("order.created", id(), 1L), "nested", everyFieldType()));
        Map<String, Object> deep = everyFieldType();
        // 14 x (table + array) + the list inside: 30 levels. amqp-client reads at most 32 and closes the
        // connection on a deeper header, before any consumer code runs (see the README)
        for (int i = 0; i < 14; i++) {
            // a table in an array in a table...: one path down, so the size stays linear
            deep = new HashMap<>(Map.of("level" + i, new ArrayList<>(List.of(i, deep))));
        }
        addValid("tables nested 30 deep", "order.created", with(contract("order.created", id(), 1L), "deep", deep));
        addValid(
                "array of every type",
                "order.created",
                with(
                        contract("order.created", id(), 1L),
                        "array",
                        new ArrayList<>(everyFieldType().values())));
        // the same, but the message arrives ahead of its predecessor and must be held (stored as JSON)
        addValid(
                "held with every type",
                "order.cancelled",
                with(
                        contract("order.cancelled", id(), 3L),
                        "nested",
                        everyFieldType(),
                        "array",
                        new ArrayList<>(everyFieldType().values())));
        addValid(
                "held with every type at top level",
                "order.cancelled",
                with(contract("order.cancelled", id(), 7L), "t", everyFieldType()));
        Map<String, Object> topLevel = contract("order.cancelled", id(), 5L);
        topLevel.putAll(everyFieldType());
        addValid("held with every type as headers", "order.cancelled", topLevel);

        // contract headers of the wrong type
        add(
                "aggregate_id as bytes",
                id(),
                "payment.captured",
                with(capture(1L), "aggregate_id", new byte[] {1, 2, 3}),
                CAPTURE_BODY);
        add(
                "aggregate_id as table",
                id(),
                "payment.captured",
                with(capture(1L), "aggregate_id", Map.of("a", 1)),
                CAPTURE_BODY);
        add(
                "aggregate_id as list",
                id(),
                "payment.captured",
                with(capture(1L), "aggregate_id", List.of(1, 2)),
                CAPTURE_BODY);
        add(
                "aggregate_type as boolean",
                id(),
                "payment.captured",
                with(capture(1L), "aggregate_type", true),
                CAPTURE_BODY);
        add(
                "message_type header as bytes, no type property",
                id(),
                null,
                with(capture(1L), "message_type", new byte[] {(byte) 0xff}),
                CAPTURE_BODY);
        add(
                "message_type header as table",
                id(),
                null,
                with(capture(1L), "message_type", Map.of("x", "y")),
                CAPTURE_BODY);
        add("aggregate_version as timestamp", id(), "payment.captured", capture(new Date()), CAPTURE_BODY);
        add(
                "message_version as timestamp",
                id(),
                "payment.captured",
                with(capture(1L), "message_version", new Date()),
                CAPTURE_BODY);
        add("aggregate_version as bytes", id(), "payment.captured", capture(new byte[] {1}), CAPTURE_BODY);
        add("aggregate_version as table", id(), "payment.captured", capture(Map.of("v", 1)), CAPTURE_BODY);

        // versions out of every range
        for (Object v : new Object[] {
            "abc",
            "",
            " 1",
            "1.5",
            1.5d,
            2.5f,
            -1,
            -1L,
            0,
            0L,
            (short) -3,
            (byte) -1,
            Long.MIN_VALUE,
            Long.MAX_VALUE,
            "99999999999999999999999",
            new BigDecimal("3.000"),
            new BigDecimal("2.5"),
            new BigDecimal("-4"),
            true,
            LongStringHelper.asLongString("12x")
        }) {
            add("aggregate_version " + v, id(), "payment.captured", capture(v), CAPTURE_BODY);
            add(
                    "message_version " + v,
                    id(),
                    "payment.captured",
                    with(capture(1L), "message_version", v),
                    CAPTURE_BODY);
        }
        add(
                "message_version above int range",
                id(),
                "payment.captured",
                with(capture(1L), "message_version", 1L + Integer.MAX_VALUE),
                CAPTURE_BODY);
        add(
                "message_version 4294967297 (wraps to 1 as int)",
                id(),
                "payment.captured",
                with(capture(1L), "message_version", 4_294_967_297L),
                CAPTURE_BODY);
        add(
                "aggregate_version without aggregate_id",
                id(),
                "payment.captured",
                with(capture(2L), "aggregate_id", null),
                CAPTURE_BODY);

        // missing or odd properties
        add("no messageId", null, "payment.captured", capture(1L), CAPTURE_BODY);
        add("blank messageId", "   ", "payment.captured", capture(1L), CAPTURE_BODY);
        add("messageId with NUL", "abc\u0000def", "payment.captured", capture(1L), CAPTURE_BODY);
        add("messageId of 255 characters", "m".repeat(255), "order.created", contract("order.created", id(), 1L), "{}");
        add("no type anywhere", id(), null, with(capture(1L), "message_type", null), CAPTURE_BODY);
        add("type with NUL", id(), "payment.\u0000captured", capture(1L), CAPTURE_BODY);
        add("aggregate_id with NUL", id(), "order.created", contract("order.created", "a\u0000b", 1L), "{}");
        add(
                "correlationId with NUL",
                props(id(), "order.created", contract("order.created", id(), 1L))
                        .correlationId("c\u0000d"),
                "{}".getBytes(StandardCharsets.UTF_8));
        add("no properties at all", new AMQP.BasicProperties.Builder(), "{}".getBytes(StandardCharsets.UTF_8));
        add("only a messageId", new AMQP.BasicProperties.Builder().messageId(id()), new byte[0]);
        add("no headers table", props(id(), "order.created", null), "{}".getBytes(StandardCharsets.UTF_8));
        add(
                "empty headers table",
                props(id(), "payment.captured", Map.of()),
                CAPTURE_BODY.getBytes(StandardCharsets.UTF_8));
        add(
                "expiration, priority, non-persistent, user id",
                props(null, "x", capture(1L))
                        .expiration("600000")
                        .priority(9)
                        .deliveryMode(1)
                        .userId("guest")
                        .timestamp(new Date(Long.MAX_VALUE / 1000))
                        .contentEncoding("gzip")
                        .contentType("text/x-nonsense")
                        .replyTo("nowhere")
                        .clusterId("c"),
                "{}".getBytes(StandardCharsets.UTF_8));
        add(
                "header keys that are odd",
                id(),
                "payment.captured",
                with(capture(1L), "", 1, "\u0000", 2, "ключ", "значение", "x-dead-letter-reason", 7),
                "not json");

        // bodies
        add("empty body", id(), "payment.captured", capture(1L), "");
        add("body not JSON", id(), "payment.captured", capture(1L), "not json {");
        add("body a JSON array", id(), "payment.captured", capture(1L), "[1,2,3]");
        add("body JSON null", id(), "payment.captured", capture(1L), "null");
        add("body a JSON string", id(), "payment.captured", capture(1L), "\"captured\"");
        add("body with duplicate keys", id(), "payment.captured", capture(1L), "{\"amount\":\"1\",\"amount\":\"2\"}");
        add(
                "body with fields of the wrong type",
                id(),
                "payment.captured",
                capture(1L),
                "{\"orderId\":1,\"paymentId\":[],\"amount\":{},\"currency\":true}");
        add(
                "body with a non-UUID order",
                id(),
                "payment.captured",
                capture(1L),
                "{\"orderId\":\"x\",\"paymentId\":\"y\",\"amount\":\"-1\",\"currency\":\"EURO\"}");
        add("body nested 5000 deep", id(), "payment.captured", capture(1L), "[".repeat(5000) + "]".repeat(5000));
        add("body not UTF-8", props(id(), "payment.captured", capture(1L)), new byte[] {
            (byte) 0xc3, (byte) 0x28, (byte) 0xff, 0, (byte) 0xfe
        });
        add("body of 2 MB", id(), "payment.captured", capture(1L), "x".repeat(2 << 20));

        // the same messageId more than once, with different content
        String dup = id();
        add("duplicate id, first", dup, "payment.captured", capture(1L), "not json");
        add("duplicate id, second", dup, "payment.captured", capture(1L), "[]");
        add("duplicate id, third", dup, "order.created", contract("order.created", id(), 1L), "{}");
        String dupOk = id();
        Map<String, Object> harmless = contract("order.created", id(), 1L);
        add("duplicate of a harmless event", dupOk, "order.created", harmless, validBody("order.created", harmless));
        add(
                "duplicate of a harmless event, again",
                dupOk,
                "order.created",
                harmless,
                validBody("order.created", harmless));

        // headers as large as a frame allows: the dead-letter copy cannot add its own to them as they are
        Map<String, Object> big = capture(1L);
        add("header frame nearly at frame_max", props(null, "payment.captured", big), new byte[0]);
        Probe last = probes.remove(probes.size() - 1);
        int size = headerFrameSize(last.properties(), 0);
        big.put("padding", "p".repeat(Math.max(0, frameMax - size - 64)));
        add("header frame nearly at frame_max", props(null, "payment.captured", big), new byte[0]);
        add(
                "header of 60 kB and a valid shape",
                id(),
                "payment.captured",
                with(capture(1L), "padding", LongStringHelper.asLongString("q".repeat(60_000))),
                CAPTURE_BODY);
    }

    private static int headerFrameSize(AMQP.BasicProperties p, long bodySize) {
        try {
            return p.toFrame(1, bodySize).size();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final String[] CONTRACT_HEADERS = {
        "message_type",
        "message_version",
        "aggregate_type",
        "aggregate_id",
        "aggregate_version",
        "tenant_id",
        "causation_id",
        "traceparent"
    };
    private static final String[] TYPES = {
        "payment.captured", "payment.refunded", "order.created", "order.cancelled", "unknown.type", ""
    };

    private void random(Random r, int cases) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < cases; i++) {
            Map<String, Object> headers = new HashMap<>();
            for (String k : CONTRACT_HEADERS) {
                if (r.nextInt(4) > 0) {
                    headers.put(k, contractValue(r, k));
                }
            }
            int extra = r.nextInt(4);
            for (int e = 0; e < extra; e++) {
                headers.put(randomString(r, 1 + r.nextInt(12)), randomValue(r, 3));
            }
            String messageId = switch (r.nextInt(10)) {
                case 0 -> null;
                case 1 -> ids.isEmpty() ? "" : ids.get(r.nextInt(ids.size()));
                default -> id();
            };
            if (messageId != null) {
                ids.add(messageId);
            }
            String type = r.nextInt(3) == 0 ? null : TYPES[r.nextInt(TYPES.length)];
            AMQP.BasicProperties.Builder p = new AMQP.BasicProperties.Builder()
                    .messageId(messageId)
                    .type(type)
                    .headers(r.nextInt(20) == 0 ? null : headers)
                    .deliveryMode(1 + r.nextInt(2));
            if (r.nextBoolean()) {
                p.correlationId(randomString(r, r.nextInt(40)));
            }
            if (r.nextBoolean()) {
                p.timestamp(new Date(r.nextLong() / 1000 * 1000));
            }
            add("random " + i, p, randomBody(r));
        }
    }

    private static Object contractValue(Random r, String key) {
        return switch (r.nextInt(6)) {
            case 0 -> randomValue(r, 2);
            case 1 -> null;
            case 2 ->
                key.endsWith("version")
                        ? (Object) (long) (r.nextInt(5) - 1)
                        : UUID.randomUUID().toString();
            case 3 -> key.endsWith("version") ? String.valueOf(r.nextLong()) : randomString(r, r.nextInt(30));
            case 4 -> key.equals("message_type") ? TYPES[r.nextInt(TYPES.length)] : (Object) r.nextInt();
            default -> LongStringHelper.asLongString(randomBytes(r, r.nextInt(20)));
        };
    }

    static Object randomValue(Random r, int depth) {
        int kinds = depth > 0 ? 16 : 14;
        return switch (r.nextInt(kinds)) {
            case 0 -> null;
            case 1 -> LongStringHelper.asLongString(randomBytes(r, r.nextInt(64)));
            case 2 -> randomString(r, r.nextInt(64));
            case 3 -> r.nextInt();
            case 4 -> r.nextLong();
            case 5 -> (short) r.nextInt();
            case 6 -> (byte) r.nextInt();
            // no NaN or infinity: RabbitMQ refuses them (it closes the publishing connection)
            case 7 -> r.nextDouble() * Math.pow(10, r.nextInt(600) - 300);
            case 8 -> r.nextFloat() * 1e30f;
            case 9 -> BigDecimal.valueOf(r.nextInt(), r.nextInt(12));
            case 10 -> r.nextBoolean();
            case 11 -> new Date((r.nextLong() & 0xFFFFFFFFFFL) * 1000);
            case 12 -> randomBytes(r, r.nextInt(64));
            case 13 -> LongStringHelper.asLongString(randomString(r, r.nextInt(500)));
            case 14 -> {
                List<Object> l = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    l.add(randomValue(r, depth - 1));
                }
                yield l;
            }
            default -> {
                Map<String, Object> m = new HashMap<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    m.put(randomString(r, 1 + r.nextInt(10)), randomValue(r, depth - 1));
                }
                yield m;
            }
        };
    }

    private static byte[] randomBody(Random r) {
        return switch (r.nextInt(8)) {
            case 0 -> new byte[0];
            case 1 -> randomBytes(r, r.nextInt(200));
            case 2 -> "{}".getBytes(StandardCharsets.UTF_8);
            case 3 -> CAPTURE_BODY.getBytes(StandardCharsets.UTF_8);
            case 4 ->
                ("{\"orderId\":\"" + UUID.randomUUID() + "\",\"paymentId\":\"" + UUID.randomUUID() + "\",\"amount\":\""
                                + r.nextInt() + "\",\"currency\":\"" + randomString(r, 3) + "\"}")
                        .getBytes(StandardCharsets.UTF_8);
            case 5 -> "[]".getBytes(StandardCharsets.UTF_8);
            case 6 -> randomString(r, r.nextInt(100)).getBytes(StandardCharsets.UTF_8);
            default -> "{\"a\":".repeat(r.nextInt(3000)).getBytes(StandardCharsets.UTF_8);
        };
    }

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** Any code points, the NUL character and unpaired surrogates included. */
    private static String randomString(Random r, int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            int kind = r.nextInt(10);
            if (kind == 0) {
                sb.append('\u0000');
            } else if (kind == 1) {
                sb.append((char) (0xD800 + r.nextInt(0x800)));
            } else if (kind < 5) {
                sb.appendCodePoint(r.nextInt(0x10FFFF + 1));
            } else {
                sb.append((char) ('a' + r.nextInt(26)));
            }
        }
        return sb.toString();
    }
}
