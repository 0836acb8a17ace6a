package dev.outbox.testkit.rows;

import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;
import static org.quicktheories.generators.SourceDSL.strings;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import org.quicktheories.api.AsString;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.core.NoGuidance;
import org.quicktheories.core.Reporter;
import org.quicktheories.core.Strategy;
import org.quicktheories.generators.Generate;

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
 *
 * <p>One QuickTheories generator, {@link #rows()}, defines every column's range. Tests take it, or
 * {@link #batches(int)} of it, under their own QuickTheories seed; a tool draws from it with a seed
 * of its own ({@link #draw}, {@link #sample}): the same seed, the same rows.
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

        /** The same row with another id. */
        public Row withId(UUID newId) {
            return with(newId, routingKey);
        }

        /** The same row with another routing key. */
        public Row withRoutingKey(String key) {
            return with(id, key);
        }

        private Row with(UUID newId, String key) {
            return new Row(
                    newId,
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

    /**
     * Rows drawn from {@code seed}, one at a time, each handed to {@code sink} as it is generated,
     * until the sink returns false. The same seed gives the same rows in the same order, run after
     * run (times relative to now are taken when each row is drawn, so a tool that writes each row
     * as it gets it writes rows that are due, or not yet due, as generated).
     *
     * <p>This is how a tool draws from {@link #rows()}, the one definition of every column's range.
     * QuickTheories has no public way to draw from a generator directly (its {@code
     * RandomnessSource} cannot be implemented outside its package), so the rows come from a
     * QuickTheories run with a fixed seed: its examples, in order, are the rows. That run skips an
     * example whose draws repeat an earlier one's (it compares a CRC32 of the draws), without
     * passing it on, so a run of {@code n} examples may give fewer than {@code n} rows; the run here
     * has no limit on examples and ends when the sink has had enough. Its first few examples are
     * made from the generator's boundaries (draws at their shrink targets, their minimums, their
     * maximums): rows at the edges, the same for every seed but for their ids (each row's id comes
     * from the seed's own stream), then random ones. No system property ({@code QT_SEED}, {@code
     * QT_EXAMPLES}, {@code QT_TESTING_TIME}, ...) changes the stream.
     */
    public static <E extends Exception> void draw(long seed, Sink<E> sink) throws E {
        Throwable[] failure = new Throwable[1];
        // the first examples are the same for every seed (every draw at its shrink target, its
        // minimum, its maximum), ids included: each row gets an id of the seed's own, so that rows
        // of two seeds never share one (and a second batch into the same table is no 23505)
        SplittableRandom ids = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        qt(() -> new Strategy(
                        // xorshift from a small seed (the tools' seeds are small numbers) starts poorly
                        // mixed: the seed is spread over 64 bits first
                        Strategy.defaultPRNG(new SplittableRandom(seed).nextLong()),
                        Integer.MAX_VALUE, // examples: as many as the sink takes
                        -1, // no time limit
                        0, // no shrinking: the stop below is no failure to shrink
                        10, // attempts per example (no generator here has assumptions)
                        SILENT,
                        prng -> new NoGuidance()))
                .forAll(rows())
                .checkAssert(row -> {
                    boolean more;
                    try {
                        more = sink.accept(row.withId(new UUID(ids.nextLong(), ids.nextLong())));
                    } catch (Throwable t) {
                        failure[0] = t;
                        more = false;
                    }
                    if (!more) {
                        // the only way to end a QuickTheories run early: it takes this for a
                        // falsification and hands it to the silent reporter
                        throw new Stop();
                    }
                });
        Throwable t = failure[0];
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        if (t != null) {
            @SuppressWarnings("unchecked") // the sink throws only E, or unchecked
            E e = (E) t;
            throw e;
        }
    }

    /**
     * Exactly {@code count} rows drawn from {@code seed} ({@link #draw}): the same seed gives the
     * same rows, run after run; times relative to now are taken when the rows are drawn.
     */
    public static List<Row> sample(long seed, int count) {
        if (count < 0) {
            throw new IllegalArgumentException("a count of rows, got " + count);
        }
        List<Row> rows = new ArrayList<>(count);
        if (count > 0) {
            draw(seed, row -> {
                rows.add(row);
                return rows.size() < count;
            });
        }
        return rows;
    }

    /** Takes the rows {@link #draw} generates, one at a time. */
    @FunctionalInterface
    public interface Sink<E extends Exception> {
        /** Takes a row; false when no more are wanted. */
        boolean accept(Row row) throws E;
    }

    /** Ends a {@link #draw}: thrown past QuickTheories, never out of it. */
    private static final class Stop extends RuntimeException {
        Stop() {
            super("enough rows", null, false, false);
        }
    }

    /** {@link #draw}'s run ends by a "falsification" that is none: nothing to report. */
    private static final Reporter SILENT = new Reporter() {
        @Override
        public void falisification(
                long seed,
                int examples,
                Object smallest,
                Throwable cause,
                List<Object> others,
                AsString<Object> toString) {}

        @Override
        public void falisification(
                long seed, int examples, Object smallest, List<Object> others, AsString<Object> toString) {}

        @Override
        public void valuesExhausted(int examples) {
            throw new IllegalStateException("no generated row after " + examples + " rows");
        }
    };

    /**
     * {@code size} rows drawn from one seed ({@link #sample}), printed as that seed: a failing
     * test shows {@code GeneratedRows.sample(seed, size)}, which draws the same rows again.
     */
    public record Batch(long seed, List<Row> rows) {
        @Override
        public String toString() {
            return rows.size() + " generated rows, GeneratedRows.sample(" + seed + "L, " + rows.size() + ")";
        }
    }

    /**
     * Batches of {@code size} rows for the tests, each drawn ({@link #sample}) from a seed the
     * test's own QuickTheories seed draws, so {@code -DQT_SEED} replays a failing batch. Not {@code
     * lists().of(rows()).ofSize(size)}: QuickTheories makes a generator's first examples from its
     * boundaries (every draw at its shrink target, its minimum, its maximum), so a test of one to
     * three examples would get batches of {@code size} alike rows, the same in every build. The
     * seed's own boundaries (0, {@code Long.MIN_VALUE}, {@code Long.MAX_VALUE}) are drawn again for
     * the same reason: every build gets new batches. Shrinking a batch means nothing; the tests
     * that take batches shrink nothing.
     */
    public static Gen<Batch> batches(int size) {
        return longs().all()
                .assuming(seed -> seed != 0 && seed != Long.MIN_VALUE && seed != Long.MAX_VALUE)
                .map(seed -> new Batch(seed, sample(seed, size)));
    }

    /** Any row a SQL client may write (or try to). */
    public static Gen<Row> rows() {
        Gen<UUID> ids = longs().all().zip(longs().all(), UUID::new);
        Gen<String> aggregateType = Generate.frequency(Pair.of(10, Generate.constant("gen")), Pair.of(3, text()));
        Gen<String> aggregateId = Generate.frequency(
                Pair.of(10, ids.map(UUID::toString)), Pair.of(4, Generate.pick(SHARED_AGGREGATES)), Pair.of(3, text()));
        Gen<Long> aggregateVersion = Generate.frequency(
                Pair.of(12, Generate.constant((Long) null)),
                // PostgreSQL keeps versions gapless per aggregate: 2 and up are refused unless
                // they follow, which the shared aggregates sometimes do
                Pair.of(8, Generate.constant(1L)),
                Pair.of(3, longs().between(2, 4)),
                Pair.of(1, Generate.constant(Long.MAX_VALUE)),
                Pair.of(1, longs().between(5, Long.MAX_VALUE)),
                Pair.of(1, Generate.pick(List.of(0L, -1L, Long.MIN_VALUE))));
        Gen<String> messageType = Generate.frequency(
                Pair.of(10, Generate.constant("gen.row")),
                Pair.of(4, Generate.pick(CONTRACT_TYPES)),
                Pair.of(4, text()),
                Pair.of(1, bytesLong(256)));
        Gen<Integer> messageVersion = Generate.frequency(
                Pair.of(20, Generate.constant(1)),
                Pair.of(2, integers().between(2, Integer.MAX_VALUE)),
                Pair.of(1, Generate.pick(List.of(Integer.MAX_VALUE, 0, -1))));
        Gen<String> exchange = Generate.frequency(
                Pair.of(30, Generate.constant("orders.events")),
                Pair.of(2, Generate.constant("")),
                Pair.of(2, Generate.constant("amq.topic")),
                Pair.of(2, text().map(t -> "gen.no-such-exchange." + t)),
                Pair.of(1, bytesLong(256)));
        Gen<String> routingKey = Generate.frequency(
                Pair.of(10, Generate.constant("gen.row")),
                Pair.of(5, text()),
                Pair.of(1, Generate.constant("")),
                Pair.of(2, Generate.pick(List.of(255, 256)).map(n -> "k".repeat(n))),
                Pair.of(1, Generate.constant("é".repeat(128))));
        Gen<String> payload = payload();
        Gen<String> headers = headers();
        Gen<Integer> attempts = Generate.frequency(
                Pair.of(20, Generate.constant(0)),
                Pair.of(3, integers().between(1, 10)),
                Pair.of(1, integers().between(11, Integer.MAX_VALUE)),
                Pair.of(1, Generate.pick(List.of(Integer.MAX_VALUE, Integer.MAX_VALUE - 1, -1))));
        Gen<String> timestamp = timestamp();
        Gen<String> optionalText = Generate.frequency(
                Pair.of(6, Generate.constant((String) null)), Pair.of(4, text()), Pair.of(1, bytesLong(256)));

        // every column drawn in turn from the same source, as zip does for up to five
        return source -> new Row(
                ids.generate(source),
                aggregateType.generate(source),
                aggregateId.generate(source),
                aggregateVersion.generate(source),
                messageType.generate(source),
                messageVersion.generate(source),
                exchange.generate(source),
                routingKey.generate(source),
                payload.generate(source),
                headers.generate(source),
                attempts.generate(source),
                timestamp.generate(source),
                timestamp.generate(source),
                optionalText.generate(source),
                optionalText.generate(source),
                optionalText.generate(source),
                optionalText.generate(source),
                false);
    }

    /**
     * Text over its whole range: {@link #jsonText()}, whose strings of any UTF-16 units include lone
     * surrogates (pgjdbc replaces them on the way in), and rarely a NUL, which PostgreSQL refuses.
     */
    static Gen<String> text() {
        return Generate.frequency(
                Pair.of(60, jsonText()),
                Pair.of(1, strings().ascii().ofLengthBetween(0, 5).map(s -> s + '\u0000' + s)));
    }

    /**
     * Text without NUL, for the many strings inside one JSON document (a NUL in any of them would
     * make jsonb refuse the whole row; {@link #payload()} puts NUL escapes in on purpose, rarely).
     */
    static Gen<String> jsonText() {
        return Generate.frequency(
                Pair.of(30, strings().basicLatinAlphabet().ofLengthBetween(1, 30)),
                Pair.of(6, chars('\u0001', '\uFFFF', 1, 30)),
                Pair.of(5, strings().betweenCodePoints(0x01, 0x1f).ofLengthBetween(1, 8)),
                Pair.of(1, Generate.constant("")),
                Pair.of(5, astral()),
                Pair.of(4, Generate.pick(List.of(255, 256)).map(n -> "a".repeat(n))),
                Pair.of(2, Generate.constant("é".repeat(128))),
                Pair.of(1, Generate.constant("x".repeat(70_000))));
    }

    /**
     * Strings of {@code minLength} to {@code maxLength} UTF-16 units, each any one from {@code
     * first} to {@code last}, lone surrogates and unassigned ones included (QuickTheories' own
     * strings take defined code points only).
     */
    static Gen<String> chars(char first, char last, int minLength, int maxLength) {
        return lists().of(integers().between(first, last))
                .ofSizeBetween(minLength, maxLength)
                .map(units -> {
                    StringBuilder b = new StringBuilder(units.size());
                    units.forEach(u -> b.append((char) u.intValue()));
                    return b.toString();
                });
    }

    private static Gen<String> bytesLong(int n) {
        return Generate.constant("b".repeat(n));
    }

    /** One to eight code points past the BMP, assigned or not. */
    private static Gen<String> astral() {
        return lists().of(integers().between(0x10000, 0x10FFFF))
                .ofSizeBetween(1, 8)
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
    static Gen<String> payload() {
        return Generate.frequency(
                Pair.of(40, json(3)),
                Pair.of(
                        1,
                        Generate.pick(List.of(
                                "{\"s\":\"\\u0000\"}",
                                "{\"s\":\"\\ud800\"}",
                                "{\"s\":\"\\udc00x\"}",
                                "{\"n\":NaN}",
                                "{'single':'quotes'}",
                                "{\"a\":1,\"a\":2}",
                                "[" + "[".repeat(2_000) + "]".repeat(2_000) + "]"))));
    }

    /** JSON text of any shape, nested up to {@code depth}. */
    static Gen<String> json(int depth) {
        Gen<String> scalar = Generate.frequency(
                Pair.of(4, integers().all().map(i -> Integer.toString(i))),
                Pair.of(
                        3,
                        Generate.pick(List.of(
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
                                "123456789012.5"))),
                Pair.of(6, jsonText().map(GeneratedRows::quote)),
                Pair.of(1, Generate.pick(List.of("\"\\ud83d\\ude00\"", "\"\\u00e9\"", "\"\\/\""))),
                Pair.of(2, Generate.pick(List.of("true", "false", "null"))));
        if (depth == 0) {
            return scalar;
        }
        Gen<String> inner = json(depth - 1);
        Gen<String> object =
                lists().of(jsonText().zip(inner, Pair::of)).ofSizeBetween(0, 4).map(GeneratedRows::object);
        Gen<String> array = lists().of(inner).ofSizeBetween(0, 4).map(items -> "[" + String.join(",", items) + "]");
        return Generate.frequency(Pair.of(5, object), Pair.of(2, array), Pair.of(3, scalar));
    }

    /** A JSON object of the fields, each key once (the first one's value). */
    private static String object(List<Pair<String, String>> fields) {
        Map<String, String> unique = new LinkedHashMap<>();
        fields.forEach(f -> unique.putIfAbsent(f._1, f._2));
        List<String> members = new ArrayList<>();
        unique.forEach((k, v) -> members.add(quote(k) + ":" + v));
        return "{" + String.join(",", members) + "}";
    }

    /** A JSON object of header values of every kind a SQL client may store. */
    static Gen<String> headers() {
        Gen<String> key = Generate.frequency(
                Pair.of(10, strings().basicLatinAlphabet().ofLengthBetween(1, 12)),
                Pair.of(3, jsonText()),
                Pair.of(1, bytesLong(256)),
                Pair.of(
                        2,
                        Generate.pick(List.of(
                                "message_type",
                                "aggregate_version",
                                "traceparent",
                                "tenant_id",
                                "x-death",
                                "x-delivery-count"))));
        Gen<String> value = Generate.frequency(
                Pair.of(8, json(0)), Pair.of(2, json(2)), Pair.of(1, Generate.constant(quote("v".repeat(70_000)))));
        Gen<String> entries =
                lists().of(key.zip(value, Pair::of)).ofSizeBetween(0, 4).map(GeneratedRows::object);
        return Generate.frequency(Pair.of(3, Generate.constant("{}")), Pair.of(5, entries));
    }

    /** A {@code timestamptz} literal, from -infinity to infinity; null for {@code now()}. */
    static Gen<String> timestamp() {
        return Generate.frequency(
                Pair.of(20, Generate.constant((String) null)),
                Pair.of(
                        5,
                        longs().between(1, 10L * 365 * 24 * 3600)
                                .map(s -> Instant.now().minusSeconds(s).toString())),
                Pair.of(
                        3,
                        integers()
                                .between(1, 4)
                                .map(s -> Instant.now().plusSeconds(s).toString())),
                Pair.of(
                        1,
                        Generate.pick(List.of(
                                "-infinity",
                                "infinity",
                                "4713-01-01 00:00:00+00 BC",
                                "294276-12-31 23:59:59+00",
                                "1970-01-01 00:00:00+00",
                                "9999-12-31 23:59:59.999999+00"))));
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
