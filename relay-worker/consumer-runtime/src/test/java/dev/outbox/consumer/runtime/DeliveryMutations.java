package dev.outbox.consumer.runtime;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.consumer.runtime.WireContract.Rule;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.jdbc.OutboxMessages;
import dev.outbox.messaging.publish.OutboundMessage;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Currency;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * Malformed deliveries generated from a valid one: a {@code payment.captured} exactly as the relay
 * maps it ({@link Wires#of}, every optional header set), then one mutation of its
 * properties, its headers (absent, null, of another AMQP type, another value: huge, negative,
 * 300-byte strings), its encodings, its routing or its body (truncated, not UTF-8, not JSON,
 * breaking the schema). Every mutation breaks the wire contract, and each names the rule
 * {@link WireContract} must report for it. Built from QuickTheories' generators, so a failing
 * mutation shrinks, and the seed printed with it replays the run ({@code -DQT_SEED=<seed>}).
 */
public final class DeliveryMutations {
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final Pattern UUID_SHAPE =
            Pattern.compile("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");
    private static final List<String> OTHER_BOUND_KEYS =
            List.of("order.created", "order.cancelled", "order.shipped", "payment.refunded");

    private DeliveryMutations() {}

    /** A delivery as it is published: exchange, routing key, properties, body. */
    public record Wire(String exchange, String routingKey, AMQP.BasicProperties props, byte[] body) {
        static Wire of(OutboundMessage m) {
            return new Wire(m.exchange(), m.routingKey(), m.properties(), m.body());
        }

        /** As the consumer would receive it. */
        public Delivery delivery() {
            return new Delivery(new Envelope(1, false, exchange, routingKey), props, body);
        }

        Wire props(AMQP.BasicProperties p) {
            return new Wire(exchange, routingKey, p, body);
        }

        Wire body(byte[] b) {
            return new Wire(exchange, routingKey, props, b);
        }

        Wire headers(UnaryOperator<Map<String, Object>> change) {
            Map<String, Object> h = props.getHeaders() == null ? null : new HashMap<>(props.getHeaders());
            return props(props.builder().headers(change.apply(h)).build());
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** One mutation: its family (for the report), what it did, the rule it breaks, and the change. */
    public record Mutation(String family, String description, Rule breaks, UnaryOperator<Wire> change) {
        public Wire applyTo(Wire valid) {
            return change.apply(valid);
        }

        @Override
        public String toString() {
            return family + ": " + description + " -> " + breaks.id();
        }
    }

    /** order.created (v1) and payment.captured (v2) of a new order, as the relay would publish them. */
    public static List<Wire> placedAndCaptured(UUID orderId) {
        Instant t = Instant.now().truncatedTo(ChronoUnit.MICROS);
        Order.Transition placed = Order.place(
                orderId, "customer-1", null, EUR, List.of(new OrderLine("SKU", 1, Money.parse("42.50", EUR))), t);
        Order.Transition captured = placed.order().capture(Money.parse("42.50", EUR), UUID.randomUUID(), t);
        List<DomainEvent> events = new ArrayList<>(placed.events());
        events.addAll(captured.events());
        MessageContext context = new MessageContext(
                "corr-" + UUID.randomUUID(),
                UUID.randomUUID().toString(),
                "00-" + UUID.randomUUID().toString().replace("-", "") + "-00f067aa0ba902b7-01",
                "tenant-a");
        return events.stream()
                .map(e -> Wire.of(Wires.of(OutboxMessages.from(e, context, System.currentTimeMillis()))))
                .toList();
    }

    /** A valid payment.captured of a new order (its v2: alone, it would be held, never booked). */
    public static Wire validCapture() {
        return placedAndCaptured(UUID.randomUUID()).get(1);
    }

    /**
     * Valid payment.captured deliveries as {@link #validCapture()} makes them, each of a new order
     * whose id is generated: every example is a delivery of its own (none is skipped as a repeat
     * of an earlier one), and the seed replays which orders they were.
     */
    public static Gen<Wire> validCaptures() {
        return SourceDSL.longs()
                .all()
                .zip(SourceDSL.longs().all(), (high, low) -> new UUID(high, low))
                .map(orderId -> placedAndCaptured(orderId).get(1))
                .describedAs(w -> "a valid payment.captured of order "
                        + w.props.getHeaders().get("aggregate_id"));
    }

    /** Every family of mutation, equally likely. */
    public static Gen<Mutation> all() {
        return Generate.oneOf(
                messageId(),
                contentType(),
                contentEncoding(),
                typeProperty(),
                headersTable(),
                missingHeader(),
                nullHeader(),
                stringHeaderOfAnotherType(),
                integerHeaderOfAnotherType(),
                messageVersionValue(),
                aggregateVersionValue(),
                stringHeaderValue(),
                optionalHeader(),
                routing(),
                truncatedBody(),
                bodyNotUtf8(),
                bodyNotTheSchema());
    }

    private static Mutation mutation(String family, String description, Rule rule, UnaryOperator<Wire> change) {
        return new Mutation(family, description, rule, change);
    }

    /**
     * The values of {@code values}, and one time in ten one of {@code edges}: the ends of a range
     * and the like, which a uniform draw from a wide range would all but never hit.
     */
    private static <T> Gen<T> withEdges(Gen<T> values, List<T> edges) {
        return values.mix(Generate.pick(edges), 10);
    }

    /** Whole numbers from {@code min} to {@code max}, edges: both ends and -1, 0, 1 where in range. */
    private static Gen<Long> longsBetween(long min, long max) {
        return withEdges(
                SourceDSL.longs().between(min, max),
                Stream.of(min, -1L, 0L, 1L, max)
                        .filter(v -> v >= min && v <= max)
                        .distinct()
                        .toList());
    }

    /** Whole numbers from {@code min} to {@code max}, edges: both ends and -1, 0, 1 where in range. */
    private static Gen<Integer> intsBetween(int min, int max) {
        return withEdges(
                SourceDSL.integers().between(min, max),
                Stream.of(min, -1, 0, 1, max)
                        .filter(v -> v >= min && v <= max)
                        .distinct()
                        .toList());
    }

    /** Byte arrays of up to {@code maxSize} bytes, the empty one an edge. */
    private static Gen<byte[]> byteArrays(int maxSize) {
        return Generate.byteArrays(intsBetween(0, maxSize), Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0));
    }

    private static Gen<Character> chars(char from, char to) {
        return Generate.range(from, to).map(c -> (char) c.intValue());
    }

    /** Any UTF-16 char, one in ten an awkward one: NUL, a lone high or low surrogate, a BOM, U+FFFF. */
    private static final Gen<Character> ANY_CHAR = withEdges(
            chars(Character.MIN_VALUE, Character.MAX_VALUE), List.of('\u0000', '\uD800', '\uDFFF', '\uFEFF', '\uFFFF'));

    /** Strings of {@code chars}, {@code min} to {@code max} long, one in ten of the shortest or the longest length. */
    private static Gen<String> strings(Gen<Character> chars, int min, int max) {
        return SourceDSL.lists()
                .of(chars)
                .ofSizes(withEdges(SourceDSL.integers().between(min, max), List.of(min, max)))
                .map(DeliveryMutations::join);
    }

    private static String join(List<Character> chars) {
        StringBuilder sb = new StringBuilder(chars.size());
        chars.forEach(sb::append);
        return sb.toString();
    }

    /** Strings of any characters, the awkward ones (NUL, surrogates, non-Latin) included. */
    private static Gen<String> anyString(int min, int max) {
        return strings(ANY_CHAR, min, max);
    }

    /** A property string: at most 255 bytes in UTF-8, the AMQP short-string limit the client enforces. */
    private static Gen<String> shortString(int min, int max) {
        return strings(chars(' ', '~'), min, Math.min(max, 255));
    }

    static Gen<Mutation> messageId() {
        Gen<String> notUuid = Generate.oneOf(
                        shortString(0, 255),
                        Generate.constant("m".repeat(255)),
                        Generate.constant(UUID.randomUUID() + "x"),
                        Generate.constant(UUID.randomUUID().toString().replace("-", "")))
                .assuming(s -> !UUID_SHAPE.matcher(s).matches());
        return Generate.oneOf(
                Generate.constant(mutation(
                        "messageId",
                        "absent",
                        Rule.MESSAGE_ID,
                        w -> w.props(w.props.builder().messageId(null).build()))),
                notUuid.map(id -> mutation(
                        "messageId",
                        "'" + abbreviate(id) + "'",
                        Rule.MESSAGE_ID,
                        w -> w.props(w.props.builder().messageId(id).build()))));
    }

    static Gen<Mutation> contentType() {
        Gen<String> other = Generate.oneOf(
                        Generate.pick(List.of(
                                "text/plain",
                                "application/xml",
                                "application/octet-stream",
                                "application/json; charset=latin-1",
                                "application/jsonx",
                                "application/json;",
                                "")),
                        shortString(1, 60))
                .assuming(s -> !s.trim().equalsIgnoreCase("application/json"));
        return Generate.oneOf(
                Generate.constant(mutation(
                        "contentType",
                        "absent",
                        Rule.CONTENT_TYPE,
                        w -> w.props(w.props.builder().contentType(null).build()))),
                other.map(ct -> mutation(
                        "contentType",
                        "'" + abbreviate(ct) + "'",
                        Rule.CONTENT_TYPE,
                        w -> w.props(w.props.builder().contentType(ct).build()))));
    }

    static Gen<Mutation> contentEncoding() {
        Gen<String> other = Generate.oneOf(
                        Generate.pick(List.of("gzip", "deflate", "br", "identity", "utf-16", "latin-1", "utf8", "")),
                        shortString(1, 40))
                .assuming(s -> !s.equalsIgnoreCase("utf-8"));
        return other.map(enc -> mutation(
                "contentEncoding",
                "'" + abbreviate(enc) + "' with the plain body",
                Rule.CONTENT_ENCODING,
                w -> w.props(w.props.builder().contentEncoding(enc).build())));
    }

    static Gen<Mutation> typeProperty() {
        Gen<String> other = Generate.oneOf(Generate.pick(OTHER_BOUND_KEYS), shortString(1, 255))
                .assuming(s -> !s.equals("payment.captured") && !s.isBlank());
        return Generate.oneOf(
                Generate.constant(mutation(
                        "type",
                        "absent",
                        Rule.TYPE,
                        w -> w.props(w.props.builder().type(null).build()))),
                other.map(t -> mutation(
                        "type",
                        "'" + abbreviate(t) + "', header unchanged",
                        Rule.MESSAGE_TYPE,
                        w -> w.props(w.props.builder().type(t).build()))),
                strings(chars('a', 'z'), 1, 20)
                        .map(t -> "x." + t)
                        .map(t -> mutation("type", "'" + t + "', header too", Rule.UNKNOWN_TYPE, w -> {
                            Map<String, Object> h = new HashMap<>(w.props.getHeaders());
                            h.put("message_type", t);
                            return w.props(w.props.builder().type(t).headers(h).build());
                        })));
    }

    static Gen<Mutation> headersTable() {
        return Generate.pick(List.of(
                mutation("headers", "no headers table", Rule.HEADERS, w -> w.headers(h -> null)),
                mutation("headers", "empty headers table", Rule.MESSAGE_TYPE, w -> w.headers(h -> new HashMap<>()))));
    }

    private static final Map<String, Rule> REQUIRED = Map.of(
            "message_type", Rule.MESSAGE_TYPE,
            "message_version", Rule.MESSAGE_VERSION,
            "aggregate_type", Rule.AGGREGATE_TYPE,
            "aggregate_id", Rule.AGGREGATE_ID,
            "aggregate_version", Rule.AGGREGATE_VERSION);

    static Gen<Mutation> missingHeader() {
        return Generate.pick(REQUIRED.keySet().stream().sorted().toList())
                .map(name -> mutation(
                        "header absent",
                        name,
                        REQUIRED.get(name),
                        w -> w.headers(h -> {
                            h.remove(name);
                            return h;
                        })));
    }

    static Gen<Mutation> nullHeader() {
        List<String> names = new ArrayList<>(REQUIRED.keySet().stream().sorted().toList());
        names.addAll(List.of("tenant_id", "causation_id", "traceparent"));
        return Generate.pick(names)
                .map(name -> mutation(
                        "header null",
                        name,
                        REQUIRED.getOrDefault(name, Rule.OPTIONAL_HEADER),
                        w -> w.headers(h -> {
                            h.put(name, null);
                            return h;
                        })));
    }

    /** Field values of every AMQP type that is not a string. */
    private static Gen<Object> notAString() {
        return Generate.oneOf(
                intsBetween(Integer.MIN_VALUE, Integer.MAX_VALUE).map(i -> (Object) i),
                longsBetween(Long.MIN_VALUE, Long.MAX_VALUE).map(l -> (Object) l),
                Generate.booleans().map(b -> (Object) b),
                withEdges(
                                SourceDSL.doubles().any().assuming(Double::isFinite),
                                List.of(0.0, 1.0, -1.0, Double.MAX_VALUE, -Double.MAX_VALUE))
                        .map(d -> (Object) d),
                // -1,000,000.000 to 1,000,000.000, scale 3
                longsBetween(-1_000_000_000L, 1_000_000_000L).map(unscaled -> (Object) BigDecimal.valueOf(unscaled, 3)),
                longsBetween(0, 4_000_000_000L).map(s -> (Object) new Date(s * 1000)),
                byteArrays(20).map(b -> (Object) b),
                Generate.<Object>constant(Map.of("value", "x")),
                Generate.<Object>constant(List.of("x", 1)));
    }

    /** Field values of every AMQP type that is not an integer: text that reads as one included. */
    private static Gen<Object> notAnInteger() {
        return Generate.oneOf(
                intsBetween(1, 1000).map(i -> (Object) LongStringHelper.asLongString("" + i)),
                intsBetween(1, 1000).map(i -> (Object) String.valueOf(i)),
                Generate.booleans().map(b -> (Object) b),
                withEdges(SourceDSL.doubles().between(1, 1e12), List.of(1.0, 1e12))
                        .map(d -> (Object) d),
                withEdges(SourceDSL.floats().between(1, 1e6f), List.of(1f, 1e6f))
                        .map(f -> (Object) f),
                intsBetween(1, 1000).map(i -> (Object) new BigDecimal(i)),
                longsBetween(0, 4_000_000_000L).map(s -> (Object) new Date(s * 1000)),
                byteArrays(8).map(b -> (Object) b),
                Generate.<Object>constant(Map.of("v", 1)),
                Generate.<Object>constant(List.of(1)));
    }

    static Gen<Mutation> stringHeaderOfAnotherType() {
        return headerOfAnotherType(List.of("message_type", "aggregate_type", "aggregate_id"), notAString());
    }

    static Gen<Mutation> integerHeaderOfAnotherType() {
        return headerOfAnotherType(List.of("message_version", "aggregate_version"), notAnInteger());
    }

    /** One of {@code names}, a required header, set to one of {@code values}, of another AMQP type. */
    private static Gen<Mutation> headerOfAnotherType(List<String> names, Gen<Object> values) {
        return Generate.pick(names)
                .zip(
                        values,
                        (name, value) -> mutation(
                                "header of another type",
                                name + " as " + AmqpHeaders.fieldType(value),
                                REQUIRED.get(name),
                                w -> w.headers(h -> {
                                    h.put(name, value);
                                    return h;
                                })));
    }

    /** Any whole number of any AMQP integer type, except the contract's version 1. */
    static Gen<Mutation> messageVersionValue() {
        Gen<Object> other = Generate.oneOf(
                intsBetween(Integer.MIN_VALUE, Integer.MAX_VALUE)
                        .assuming(i -> i != 1)
                        .map(i -> (Object) i),
                longsBetween(Long.MIN_VALUE, Long.MAX_VALUE)
                        .assuming(l -> l != 1)
                        .map(l -> (Object) l),
                Generate.pick(List.<Object>of(
                        Integer.MAX_VALUE, Integer.MIN_VALUE, 0, -1, 2, 4_294_967_297L, Long.MAX_VALUE)),
                intsBetween(Short.MIN_VALUE, Short.MAX_VALUE)
                        .assuming(s -> s != 1)
                        .map(s -> (Object) s.shortValue()),
                intsBetween(Byte.MIN_VALUE, Byte.MAX_VALUE)
                        .assuming(b -> b != 1)
                        .map(b -> (Object) b.byteValue()));
        return other.map(v -> mutation(
                "message_version value",
                v + " (" + v.getClass().getSimpleName() + ")",
                // outside 1..int a version is refused as such; inside, no contract has it
                Rule.UNKNOWN_VERSION,
                w -> w.headers(h -> {
                    h.put("message_version", v);
                    return h;
                })));
    }

    /** Zero or negative, of any AMQP integer type. */
    static Gen<Mutation> aggregateVersionValue() {
        Gen<Object> notPositive = Generate.oneOf(
                longsBetween(Long.MIN_VALUE, 0).map(l -> (Object) l),
                intsBetween(Integer.MIN_VALUE, 0).map(i -> (Object) i),
                Generate.pick(List.<Object>of(0, 0L, -1L, Long.MIN_VALUE, Integer.MIN_VALUE)),
                intsBetween(Short.MIN_VALUE, 0).map(s -> (Object) s.shortValue()),
                intsBetween(Byte.MIN_VALUE, 0).map(b -> (Object) b.byteValue()));
        return notPositive.map(v -> mutation(
                "aggregate_version value",
                v + " (" + v.getClass().getSimpleName() + ")",
                Rule.AGGREGATE_VERSION,
                w -> w.headers(h -> {
                    h.put("aggregate_version", v);
                    return h;
                })));
    }

    /** message_type, aggregate_type or aggregate_id as another string: 300 bytes, blank, NUL, other types. */
    static Gen<Mutation> stringHeaderValue() {
        Gen<String> values = Generate.oneOf(
                        anyString(300, 300),
                        strings(chars('a', 'z'), 300, 300),
                        anyString(0, 40),
                        Generate.pick(
                                List.of("", " ", "\u0000", "payment.refunded", "order.created", "customer", "ORDER")),
                        Generate.constant(UUID.randomUUID().toString()))
                // the two values that are right for one of these headers
                .assuming(v -> !v.equals("payment.captured") && !v.equals("order"));
        return Generate.pick(List.of("message_type", "aggregate_type", "aggregate_id"))
                .zip(
                        values,
                        (name, value) -> mutation(
                                "header value",
                                name + " = '" + abbreviate(value) + "' (" + value.length() + " chars)",
                                REQUIRED.get(name),
                                w -> w.headers(h -> {
                                    h.put(name, value);
                                    return h;
                                })));
    }

    static Gen<Mutation> optionalHeader() {
        Gen<Mutation> wrongType = Generate.pick(List.of("tenant_id", "causation_id", "traceparent"))
                .zip(
                        notAString(),
                        (name, value) -> mutation(
                                "optional header",
                                name + " as " + AmqpHeaders.fieldType(value),
                                Rule.OPTIONAL_HEADER,
                                w -> w.headers(h -> {
                                    h.put(name, value);
                                    return h;
                                })));
        Gen<Mutation> badTrace = Generate.oneOf(
                        anyString(300, 300),
                        anyString(0, 60),
                        Generate.pick(List.of("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", "garbage")))
                .assuming(s -> !dev.outbox.Traceparent.isValid(s))
                .map(t -> mutation(
                        "optional header",
                        "traceparent '" + abbreviate(t) + "'",
                        Rule.OPTIONAL_HEADER,
                        w -> w.headers(h -> {
                            h.put("traceparent", t);
                            return h;
                        })));
        return Generate.oneOf(wrongType, badTrace);
    }

    /** Through the contract's exchange with another routing key the queue is bound to. */
    static Gen<Mutation> routing() {
        return Generate.pick(OTHER_BOUND_KEYS)
                .map(key -> mutation(
                        "routing",
                        "orders.events with routing key " + key,
                        Rule.ROUTING,
                        w -> new Wire(w.exchange, key, w.props, w.body)));
    }

    static Gen<Mutation> truncatedBody() {
        return intsBetween(0, 999)
                .map(permille -> mutation(
                        "body truncated",
                        "to " + permille / 10.0 + "%",
                        Rule.BODY_JSON,
                        w -> w.body(Arrays.copyOf(w.body, w.body.length * permille / 1000))));
    }

    /** A byte sequence no UTF-8 decoder accepts, spliced in at some point of the body. */
    static Gen<Mutation> bodyNotUtf8() {
        Gen<byte[]> invalid = Generate.pick(List.of(
                new byte[] {(byte) 0xff},
                new byte[] {(byte) 0xc3, (byte) 0x28},
                new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, // an unpaired surrogate, CESU-8 style
                new byte[] {(byte) 0xe2, (byte) 0x82},
                new byte[] {(byte) 0xf8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
                new byte[] {(byte) 0xc0, (byte) 0xaf})); // an overlong '/'
        // anywhere from the body's first byte to after its last, both ends among the edges
        Gen<Double> where = withEdges(SourceDSL.doubles().between(0, 1), List.of(0.0, 1.0));
        return invalid.zip(
                where,
                (bad, at) -> mutation(
                        "body not UTF-8", toHex(bad) + " at " + Math.round(at * 100) + "%", Rule.BODY_ENCODING, w -> {
                            int pos = (int) Math.round(w.body.length * at);
                            byte[] out = new byte[w.body.length + bad.length];
                            System.arraycopy(w.body, 0, out, 0, pos);
                            System.arraycopy(bad, 0, out, pos, bad.length);
                            System.arraycopy(w.body, pos, out, pos + bad.length, w.body.length - pos);
                            return w.body(out);
                        }));
    }

    static Gen<Mutation> bodyNotTheSchema() {
        Gen<Mutation> dropped = Generate.pick(List.of("paymentId", "amount", "currency", "capturedAt", "orderId"))
                .map(field -> mutation(
                        "body schema",
                        "without " + field,
                        Rule.BODY_SCHEMA,
                        w -> w.body(json(w.bodyText()
                                .replaceFirst("\"" + field + "\":\"[^\"]*\",?", "")
                                .replace(",}", "}")))));
        Gen<Mutation> amount = Generate.pick(List.of(
                        "\"-1.00\"",
                        "\"0\"",
                        "\"0.00\"",
                        "\"1e3\"",
                        "\"abc\"",
                        "\"\"",
                        "10",
                        "null",
                        "[]",
                        "{}",
                        "true"))
                .map(v -> mutation(
                        "body schema",
                        "amount " + v,
                        Rule.BODY_SCHEMA,
                        w -> w.body(json(w.bodyText().replaceFirst("\"amount\":\"[^\"]*\"", "\"amount\":" + v)))));
        Gen<Mutation> currency = strings(chars('a', 'z'), 0, 5)
                .map(c -> mutation(
                        "body schema",
                        "currency '" + c + "'",
                        Rule.BODY_SCHEMA,
                        w -> w.body(json(
                                w.bodyText().replaceFirst("\"currency\":\"[^\"]*\"", "\"currency\":\"" + c + "\"")))));
        Gen<Mutation> notAnObject = Generate.pick(List.of("[]", "\"payment\"", "42", "null", "[{}]", "true"))
                .map(v -> mutation("body schema", "the body " + v, Rule.BODY_SCHEMA, w -> w.body(json(v))));
        Gen<Mutation> notJson = Generate.pick(List.of("", "{", "{}}", "{\"a\":1} {\"b\":2}", "not json", "{'a':1}"))
                .map(v -> mutation("body not JSON", "'" + v + "'", Rule.BODY_JSON, w -> w.body(json(v))));
        Gen<Mutation> duplicateKey = Generate.constant(mutation(
                "body not JSON",
                "amount twice",
                Rule.BODY_JSON,
                w -> w.body(json(w.bodyText().replaceFirst("\\{", "{\"amount\":\"1.00\",")))));
        Gen<Mutation> otherAggregate = Generate.constant(mutation(
                "body schema",
                "orderId of another order",
                Rule.AGGREGATE_ID,
                w -> w.body(json(w.bodyText()
                        .replaceFirst("\"orderId\":\"[^\"]*\"", "\"orderId\":\"" + UUID.randomUUID() + "\"")))));
        return Generate.oneOf(dropped, amount, currency, notAnObject, notJson, duplicateKey, otherAggregate);
    }

    private static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String toHex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x));
        }
        return sb.toString();
    }

    private static String abbreviate(String s) {
        String shown = s.length() > 24 ? s.substring(0, 24) + "..." : s;
        StringBuilder out = new StringBuilder();
        shown.codePoints().forEach(c -> {
            if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.append((char) c);
            }
        });
        return out.toString();
    }
}
