package dev.outbox.testkit.rows;

import java.math.BigInteger;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Rows as any SQL client may insert them into {@code message_outbox}, generated over every
 * column's whole range: empty, 255-, 256- and 70,000-byte strings, NUL and control characters,
 * astral characters and lone surrogates, integers at and past every type's edge, fractions,
 * nested objects and arrays in {@code headers}, timestamps from {@code -infinity} to {@code
 * infinity}, and the names of exchanges that do not exist. Most values are ordinary, so that
 * the odd ones meet a relay doing normal work. PostgreSQL refuses some of them (NUL in text or
 * JSON, a CHECK): those are the database's answer, counted by {@link RowWriter}, not rows.
 *
 * <p>Every row is a {@link Row}; {@link #ordinary(int)} makes the plain rows interleaved with the
 * generated ones, whose publication must not be held up by them.
 */
public final class GeneratedRows {
    /** The shared aggregates some generated rows fall into, so that ordering meets odd rows too. */
    static final List<String> SHARED_AGGREGATES = List.of("agg-1", "agg-2", "agg-3");

    /** Message types with a contract on the relay's class path (their payloads are checked). */
    static final List<String> CONTRACT_TYPES =
            List.of("order.created", "payment.captured", "order.cancelled", "payment.refunded", "order.shipped");

    public static final String ORDINARY_TYPE = "gen.ordinary";
    public static final String ORDINARY_AGGREGATE_TYPE = "gen-ordinary";

    private GeneratedRows() {}

    /**
     * One row. Text is inserted as given (so PostgreSQL decides about NUL and lone surrogates);
     * {@code payload} and {@code headers} are JSON text cast to {@code jsonb}; timestamps are
     * {@code timestamptz} literals, null for the column's default ({@code now()}).
     */
    public record Row(
            UUID id,
            String aggregateType,
            String aggregateId,
            Long aggregateVersion,
            String messageType,
            int messageVersion,
            String exchangeName,
            String routingKey,
            String payload,
            String headers,
            int attemptCount,
            String nextAttemptAt,
            String createdAt,
            String correlationId,
            String causationId,
            String traceId,
            String tenantId,
            boolean ordinary) {

        /** The same row with another routing key. */
        public Row withRoutingKey(String key) {
            return new Row(
                    id,
                    aggregateType,
                    aggregateId,
                    aggregateVersion,
                    messageType,
                    messageVersion,
                    exchangeName,
                    key,
                    payload,
                    headers,
                    attemptCount,
                    nextAttemptAt,
                    createdAt,
                    correlationId,
                    causationId,
                    traceId,
                    tenantId,
                    ordinary);
        }
    }

    /** A plain row, as the API writes them: the ones that must keep flowing. */
    public static Row ordinary(int n) {
        return new Row(
                UUID.randomUUID(),
                ORDINARY_AGGREGATE_TYPE,
                UUID.randomUUID().toString(),
                1L,
                ORDINARY_TYPE,
                1,
                "orders.events",
                ORDINARY_TYPE,
                "{\"n\":" + n + "}",
                "{}",
                0,
                null,
                null,
                "corr-" + n,
                null,
                null,
                null,
                true);
    }

    /** A row whose payload, as PostgreSQL prints it back, is exactly {@code bodyBytes} long. */
    public static Row withBodyOf(int bodyBytes) {
        // jsonb prints {"p": "..."}: 9 bytes around the string
        String payload = "{\"p\": \"" + "x".repeat(bodyBytes - 9) + "\"}";
        Row o = ordinary(-bodyBytes);
        return new Row(
                o.id(),
                "gen-big",
                o.aggregateId(),
                null,
                "gen.big",
                1,
                "orders.events",
                "gen.big",
                payload,
                "{}",
                0,
                null,
                null,
                null,
                null,
                null,
                null,
                false);
    }

    /** Any row a SQL client may write (or try to). */
    public static Arbitrary<Row> rows() {
        Arbitrary<String> aggregateId = Arbitraries.frequencyOf(
                Tuple.of(10, Arbitraries.create(() -> UUID.randomUUID().toString())),
                Tuple.of(4, Arbitraries.of(SHARED_AGGREGATES)),
                Tuple.of(3, text()));
        Arbitrary<Long> aggregateVersion = Arbitraries.frequencyOf(
                Tuple.of(12, Arbitraries.just(null)),
                // PostgreSQL keeps versions gapless per aggregate: 2 and up are refused unless
                // they follow, which the shared aggregates sometimes do
                Tuple.of(8, Arbitraries.just(1L)),
                Tuple.of(3, Arbitraries.longs().between(2, 4)),
                Tuple.of(1, Arbitraries.just(Long.MAX_VALUE)),
                Tuple.of(1, Arbitraries.longs().between(5, Long.MAX_VALUE)),
                Tuple.of(1, Arbitraries.of(0L, -1L, Long.MIN_VALUE)));
        Arbitrary<String> messageType = Arbitraries.frequencyOf(
                Tuple.of(10, Arbitraries.just("gen.row")),
                Tuple.of(4, Arbitraries.of(CONTRACT_TYPES)),
                Tuple.of(4, text()),
                Tuple.of(1, bytesLong(256)));
        Arbitrary<Integer> messageVersion = Arbitraries.frequencyOf(
                Tuple.of(20, Arbitraries.just(1)),
                Tuple.of(2, Arbitraries.integers().between(2, Integer.MAX_VALUE)),
                Tuple.of(1, Arbitraries.of(Integer.MAX_VALUE, 0, -1)));
        Arbitrary<String> exchange = Arbitraries.frequencyOf(
                Tuple.of(30, Arbitraries.just("orders.events")),
                Tuple.of(2, Arbitraries.just("")),
                Tuple.of(2, Arbitraries.just("amq.topic")),
                Tuple.of(2, text().map(t -> "gen.no-such-exchange." + t)),
                Tuple.of(1, bytesLong(256)));
        Arbitrary<String> routingKey = Arbitraries.frequencyOf(
                Tuple.of(10, Arbitraries.just("gen.row")),
                Tuple.of(5, text()),
                Tuple.of(1, Arbitraries.just("")),
                Tuple.of(2, Arbitraries.of(255, 256).map(n -> "k".repeat(n))),
                Tuple.of(1, Arbitraries.just("é".repeat(128))));
        Arbitrary<Integer> attempts = Arbitraries.frequencyOf(
                Tuple.of(20, Arbitraries.just(0)),
                Tuple.of(3, Arbitraries.integers().between(1, 10)),
                Tuple.of(1, Arbitraries.integers().between(11, Integer.MAX_VALUE)),
                Tuple.of(1, Arbitraries.of(Integer.MAX_VALUE, Integer.MAX_VALUE - 1, -1)));
        Arbitrary<String> optionalText = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just(null)), Tuple.of(4, text()), Tuple.of(1, bytesLong(256)));

        Arbitrary<Row> generated = Combinators.combine(
                        Combinators.combine(
                                        Arbitraries.frequencyOf(
                                                Tuple.of(10, Arbitraries.just("gen")), Tuple.of(3, text())),
                                        aggregateId,
                                        aggregateVersion,
                                        messageType,
                                        messageVersion,
                                        exchange,
                                        routingKey,
                                        payload())
                                .as(Head::new),
                        headers(),
                        attempts,
                        timestamp(),
                        timestamp(),
                        optionalText,
                        optionalText,
                        Combinators.combine(optionalText, optionalText).as(java.util.Arrays::asList))
                .as((h, headers, attemptCount, next, created, corr, cause, traceAndTenant) -> new Row(
                        UUID.randomUUID(),
                        h.aggregateType,
                        h.aggregateId,
                        h.aggregateVersion,
                        h.messageType,
                        h.messageVersion,
                        h.exchange,
                        h.routingKey,
                        h.payload,
                        headers,
                        attemptCount,
                        next,
                        created,
                        corr,
                        cause,
                        traceAndTenant.get(0),
                        traceAndTenant.get(1),
                        false));
        return generated;
    }

    private record Head(
            String aggregateType,
            String aggregateId,
            Long aggregateVersion,
            String messageType,
            Integer messageVersion,
            String exchange,
            String routingKey,
            String payload) {}

    /**
     * Text over its whole range. {@code strings().all()} includes NUL and lone surrogates: the
     * first PostgreSQL refuses, the second pgjdbc replaces on the way in.
     */
    static Arbitrary<String> text() {
        return Arbitraries.frequencyOf(
                Tuple.of(60, jsonText()),
                Tuple.of(1, Arbitraries.strings().ascii().ofMaxLength(5).map(s -> s + '\u0000' + s)));
    }

    /**
     * Text without NUL, for the many strings inside one JSON document (a NUL in any of them would
     * make jsonb refuse the whole row; {@link #payload()} puts NUL escapes in on purpose, rarely).
     */
    static Arbitrary<String> jsonText() {
        return Arbitraries.frequencyOf(
                Tuple.of(
                        30,
                        Arbitraries.strings()
                                .withCharRange(' ', '~')
                                .ofMinLength(1)
                                .ofMaxLength(30)),
                Tuple.of(
                        6,
                        Arbitraries.strings()
                                .all()
                                .excludeChars('\u0000')
                                .ofMinLength(1)
                                .ofMaxLength(30)),
                Tuple.of(
                        5,
                        Arbitraries.strings()
                                .withCharRange('\u0001', '\u001f')
                                .ofMinLength(1)
                                .ofMaxLength(8)),
                Tuple.of(1, Arbitraries.just("")),
                Tuple.of(5, astral()),
                Tuple.of(4, Arbitraries.of(255, 256).map(n -> "a".repeat(n))),
                Tuple.of(2, Arbitraries.just("é".repeat(128))),
                Tuple.of(1, Arbitraries.just("x".repeat(70_000))));
    }

    private static Arbitrary<String> bytesLong(int n) {
        return Arbitraries.just("b".repeat(n));
    }

    private static Arbitrary<String> astral() {
        return Arbitraries.integers()
                .between(0x10000, 0x10FFFF)
                .list()
                .ofMinSize(1)
                .ofMaxSize(8)
                .map(cps -> {
                    StringBuilder b = new StringBuilder();
                    cps.forEach(b::appendCodePoint);
                    return b.toString();
                });
    }

    /**
     * A payload: mostly any JSON, sometimes an escape jsonb refuses ({@code \\u0000}, a lone
     * surrogate), sometimes text that is not JSON at all.
     */
    static Arbitrary<String> payload() {
        return Arbitraries.frequencyOf(
                Tuple.of(40, json(3)),
                Tuple.of(
                        1,
                        Arbitraries.of(
                                "{\"s\":\"\\u0000\"}",
                                "{\"s\":\"\\ud800\"}",
                                "{\"s\":\"\\udc00x\"}",
                                "{\"n\":NaN}",
                                "{'single':'quotes'}",
                                "{\"a\":1,\"a\":2}",
                                "[" + "[".repeat(2_000) + "]".repeat(2_000) + "]")));
    }

    /** JSON text of any shape, nested up to {@code depth}. */
    static Arbitrary<String> json(int depth) {
        Arbitrary<String> scalar = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().map(String::valueOf)),
                Tuple.of(
                        3,
                        Arbitraries.of(
                                String.valueOf(Long.MAX_VALUE),
                                String.valueOf(Long.MIN_VALUE),
                                BigInteger.TWO.pow(63).toString(),
                                BigInteger.TWO.pow(64).toString(),
                                BigInteger.TWO
                                        .pow(63)
                                        .negate()
                                        .subtract(BigInteger.ONE)
                                        .toString(),
                                "1" + "0".repeat(40),
                                "1.5",
                                "-0",
                                "0.1",
                                "1e-300",
                                "1e300",
                                "1e400",
                                "123456789012.5")),
                Tuple.of(6, jsonText().map(GeneratedRows::quote)),
                Tuple.of(1, Arbitraries.of("\"\\ud83d\\ude00\"", "\"\\u00e9\"", "\"\\/\"")),
                Tuple.of(2, Arbitraries.of("true", "false", "null")));
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<String> object = Combinators.combine(jsonText(), Arbitraries.lazy(() -> json(depth - 1)))
                .as((k, v) -> quote(k) + ":" + v)
                .list()
                .ofMaxSize(4)
                .uniqueElements(e -> e.substring(0, e.lastIndexOf(':')))
                .map(fields -> "{" + String.join(",", fields) + "}");
        Arbitrary<String> array = Arbitraries.lazy(() -> json(depth - 1))
                .list()
                .ofMaxSize(4)
                .map(items -> "[" + String.join(",", items) + "]");
        return Arbitraries.frequencyOf(Tuple.of(5, object), Tuple.of(2, array), Tuple.of(3, scalar));
    }

    /** A JSON object of header values of every kind a SQL client may store. */
    static Arbitrary<String> headers() {
        Arbitrary<String> key = Arbitraries.frequencyOf(
                Tuple.of(
                        10,
                        Arbitraries.strings()
                                .withCharRange(' ', '~')
                                .ofMinLength(1)
                                .ofMaxLength(12)),
                Tuple.of(3, jsonText()),
                Tuple.of(1, bytesLong(256)),
                Tuple.of(
                        2,
                        Arbitraries.of(
                                "message_type",
                                "aggregate_version",
                                "traceparent",
                                "tenant_id",
                                "x-death",
                                "x-delivery-count")));
        Arbitrary<String> value = Arbitraries.frequencyOf(
                Tuple.of(8, json(0)), Tuple.of(2, json(2)), Tuple.of(1, Arbitraries.just(quote("v".repeat(70_000)))));
        Arbitrary<String> entries = Combinators.combine(key, value)
                .as((k, v) -> quote(k) + ":" + v)
                .list()
                .ofMaxSize(4)
                .uniqueElements(e -> e.substring(0, e.lastIndexOf(':')))
                .map(fields -> "{" + String.join(",", fields) + "}");
        return Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just("{}")), Tuple.of(5, entries));
    }

    /** A {@code timestamptz} literal, from -infinity to infinity; null for {@code now()}. */
    static Arbitrary<String> timestamp() {
        return Arbitraries.frequencyOf(
                Tuple.of(20, Arbitraries.just(null)),
                Tuple.of(
                        5,
                        Arbitraries.longs()
                                .between(1, 10L * 365 * 24 * 3600)
                                .map(s -> Instant.now().minusSeconds(s).toString())),
                Tuple.of(
                        3,
                        Arbitraries.integers()
                                .between(1, 4)
                                .map(s -> Instant.now().plusSeconds(s).toString())),
                Tuple.of(
                        1,
                        Arbitraries.of(
                                "-infinity",
                                "infinity",
                                "4713-01-01 00:00:00+00 BC",
                                "294276-12-31 23:59:59+00",
                                "1970-01-01 00:00:00+00",
                                "9999-12-31 23:59:59.999999+00")));
    }

    /** A JSON string literal for any Java string (lone surrogates included, as written). */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
