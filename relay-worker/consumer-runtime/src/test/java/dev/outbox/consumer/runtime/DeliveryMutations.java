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
import dev.outbox.messaging.publish.OutboundMessage;
import dev.outbox.persistence.outbox.OutboxMessages;
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
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Malformed deliveries generated from a valid one: a {@code payment.captured} exactly as the relay
 * maps it ({@link Wires#of}, every optional header set), then one mutation of its
 * properties, its headers (absent, null, of another AMQP type, another value: huge, negative,
 * 300-byte strings), its encodings, its routing or its body (truncated, not UTF-8, not JSON,
 * breaking the schema). Every mutation breaks the wire contract, and each names the rule
 * {@link WireContract} must report for it.
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

    /** Every family of mutation, equally likely. */
    public static Arbitrary<Mutation> all() {
        return Arbitraries.oneOf(List.of(
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
                bodyNotTheSchema()));
    }

    private static Mutation mutation(String family, String description, Rule rule, UnaryOperator<Wire> change) {
        return new Mutation(family, description, rule, change);
    }

    /** Strings of any characters, the awkward ones (NUL, surrogates, non-Latin) included. */
    private static Arbitrary<String> anyString(int min, int max) {
        return Arbitraries.strings()
                .withCharRange('\u0000', '\uFFFF')
                .ofMinLength(min)
                .ofMaxLength(max);
    }

    /** A property string: at most 255 bytes in UTF-8, the AMQP short-string limit the client enforces. */
    private static Arbitrary<String> shortString(int min, int max) {
        return Arbitraries.strings().withCharRange(' ', '~').ofMinLength(min).ofMaxLength(Math.min(max, 255));
    }

    static Arbitrary<Mutation> messageId() {
        Arbitrary<String> notUuid = Arbitraries.oneOf(
                        shortString(0, 255),
                        Arbitraries.just("m".repeat(255)),
                        Arbitraries.just(UUID.randomUUID() + "x"),
                        Arbitraries.just(UUID.randomUUID().toString().replace("-", "")))
                .filter(s -> !UUID_SHAPE.matcher(s).matches());
        return Arbitraries.oneOf(
                Arbitraries.just(mutation(
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

    static Arbitrary<Mutation> contentType() {
        Arbitrary<String> other = Arbitraries.oneOf(
                        Arbitraries.of(
                                "text/plain",
                                "application/xml",
                                "application/octet-stream",
                                "application/json; charset=latin-1",
                                "application/jsonx",
                                "application/json;",
                                ""),
                        shortString(1, 60))
                .filter(s -> !s.trim().equalsIgnoreCase("application/json"));
        return Arbitraries.oneOf(
                Arbitraries.just(mutation(
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

    static Arbitrary<Mutation> contentEncoding() {
        Arbitrary<String> other = Arbitraries.oneOf(
                        Arbitraries.of("gzip", "deflate", "br", "identity", "utf-16", "latin-1", "utf8", ""),
                        shortString(1, 40))
                .filter(s -> !s.equalsIgnoreCase("utf-8"));
        return other.map(enc -> mutation(
                "contentEncoding",
                "'" + abbreviate(enc) + "' with the plain body",
                Rule.CONTENT_ENCODING,
                w -> w.props(w.props.builder().contentEncoding(enc).build())));
    }

    static Arbitrary<Mutation> typeProperty() {
        Arbitrary<String> other = Arbitraries.oneOf(Arbitraries.of(OTHER_BOUND_KEYS), shortString(1, 255))
                .filter(s -> !s.equals("payment.captured") && !s.isBlank());
        return Arbitraries.oneOf(
                Arbitraries.just(mutation(
                        "type",
                        "absent",
                        Rule.TYPE,
                        w -> w.props(w.props.builder().type(null).build()))),
                other.map(t -> mutation(
                        "type",
                        "'" + abbreviate(t) + "', header unchanged",
                        Rule.MESSAGE_TYPE,
                        w -> w.props(w.props.builder().type(t).build()))),
                Arbitraries.strings()
                        .withCharRange('a', 'z')
                        .ofMinLength(1)
                        .ofMaxLength(20)
                        .map(t -> "x." + t)
                        .map(t -> mutation("type", "'" + t + "', header too", Rule.UNKNOWN_TYPE, w -> {
                            Map<String, Object> h = new HashMap<>(w.props.getHeaders());
                            h.put("message_type", t);
                            return w.props(w.props.builder().type(t).headers(h).build());
                        })));
    }

    static Arbitrary<Mutation> headersTable() {
        return Arbitraries.of(
                mutation("headers", "no headers table", Rule.HEADERS, w -> w.headers(h -> null)),
                mutation("headers", "empty headers table", Rule.MESSAGE_TYPE, w -> w.headers(h -> new HashMap<>())));
    }

    private static final Map<String, Rule> REQUIRED = Map.of(
            "message_type", Rule.MESSAGE_TYPE,
            "message_version", Rule.MESSAGE_VERSION,
            "aggregate_type", Rule.AGGREGATE_TYPE,
            "aggregate_id", Rule.AGGREGATE_ID,
            "aggregate_version", Rule.AGGREGATE_VERSION);

    static Arbitrary<Mutation> missingHeader() {
        return Arbitraries.of(REQUIRED.keySet().stream().sorted().toList())
                .map(name -> mutation(
                        "header absent",
                        name,
                        REQUIRED.get(name),
                        w -> w.headers(h -> {
                            h.remove(name);
                            return h;
                        })));
    }

    static Arbitrary<Mutation> nullHeader() {
        List<String> names = new ArrayList<>(REQUIRED.keySet().stream().sorted().toList());
        names.addAll(List.of("tenant_id", "causation_id", "traceparent"));
        return Arbitraries.of(names)
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
    private static Arbitrary<Object> notAString() {
        return Arbitraries.oneOf(
                Arbitraries.integers().map(i -> (Object) i),
                Arbitraries.longs().map(l -> (Object) l),
                Arbitraries.of(true, false).map(b -> (Object) b),
                Arbitraries.doubles().map(d -> (Object) d),
                Arbitraries.bigDecimals()
                        .between(new BigDecimal("-1000000"), new BigDecimal("1000000"))
                        .ofScale(3)
                        .map(d -> (Object) d),
                Arbitraries.longs().between(0, 4_000_000_000L).map(s -> (Object) new Date(s * 1000)),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(20).map(b -> (Object) b),
                Arbitraries.just(Map.of("value", "x")),
                Arbitraries.just(List.of("x", 1)));
    }

    /** Field values of every AMQP type that is not an integer: text that reads as one included. */
    private static Arbitrary<Object> notAnInteger() {
        return Arbitraries.oneOf(
                Arbitraries.integers().between(1, 1000).map(i -> (Object) LongStringHelper.asLongString("" + i)),
                Arbitraries.integers().between(1, 1000).map(i -> (Object) String.valueOf(i)),
                Arbitraries.of(true, false).map(b -> (Object) b),
                Arbitraries.doubles().between(1, 1e12).map(d -> (Object) d),
                Arbitraries.floats().between(1, 1e6f).map(f -> (Object) f),
                Arbitraries.integers().between(1, 1000).map(i -> (Object) new BigDecimal(i)),
                Arbitraries.longs().between(0, 4_000_000_000L).map(s -> (Object) new Date(s * 1000)),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(8).map(b -> (Object) b),
                Arbitraries.just(Map.of("v", 1)),
                Arbitraries.just(List.of(1)));
    }

    static Arbitrary<Mutation> stringHeaderOfAnotherType() {
        return Combinators.combine(Arbitraries.of("message_type", "aggregate_type", "aggregate_id"), notAString())
                .as((name, value) -> mutation(
                        "header of another type",
                        name + " as " + AmqpHeaders.fieldType(value),
                        REQUIRED.get(name),
                        w -> w.headers(h -> {
                            h.put(name, value);
                            return h;
                        })));
    }

    static Arbitrary<Mutation> integerHeaderOfAnotherType() {
        return Combinators.combine(Arbitraries.of("message_version", "aggregate_version"), notAnInteger())
                .as((name, value) -> mutation(
                        "header of another type",
                        name + " as " + AmqpHeaders.fieldType(value),
                        REQUIRED.get(name),
                        w -> w.headers(h -> {
                            h.put(name, value);
                            return h;
                        })));
    }

    /** Any whole number of any AMQP integer type, except the contract's version 1. */
    static Arbitrary<Mutation> messageVersionValue() {
        Arbitrary<Object> other = Arbitraries.oneOf(
                Arbitraries.integers().filter(i -> i != 1).map(i -> (Object) i),
                Arbitraries.longs().filter(l -> l != 1).map(l -> (Object) l),
                Arbitraries.<Object>of(Integer.MAX_VALUE, Integer.MIN_VALUE, 0, -1, 2, 4_294_967_297L, Long.MAX_VALUE),
                Arbitraries.shorts().filter(s -> s != 1).map(s -> (Object) s),
                Arbitraries.bytes().filter(b -> b != 1).map(b -> (Object) b));
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
    static Arbitrary<Mutation> aggregateVersionValue() {
        Arbitrary<Object> notPositive = Arbitraries.oneOf(
                Arbitraries.longs().lessOrEqual(0).map(l -> (Object) l),
                Arbitraries.integers().lessOrEqual(0).map(i -> (Object) i),
                Arbitraries.<Object>of(0, 0L, -1L, Long.MIN_VALUE, Integer.MIN_VALUE),
                Arbitraries.shorts().lessOrEqual((short) 0).map(s -> (Object) s),
                Arbitraries.bytes().lessOrEqual((byte) 0).map(b -> (Object) b));
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
    static Arbitrary<Mutation> stringHeaderValue() {
        Arbitrary<String> values = Arbitraries.oneOf(
                        anyString(300, 300),
                        Arbitraries.strings().withCharRange('a', 'z').ofLength(300),
                        anyString(0, 40),
                        Arbitraries.of("", " ", "\u0000", "payment.refunded", "order.created", "customer", "ORDER"),
                        Arbitraries.just(UUID.randomUUID().toString()))
                // the two values that are right for one of these headers
                .filter(v -> !v.equals("payment.captured") && !v.equals("order"));
        return Combinators.combine(Arbitraries.of("message_type", "aggregate_type", "aggregate_id"), values)
                .as((name, value) -> mutation(
                        "header value",
                        name + " = '" + abbreviate(value) + "' (" + value.length() + " chars)",
                        REQUIRED.get(name),
                        w -> w.headers(h -> {
                            h.put(name, value);
                            return h;
                        })));
    }

    static Arbitrary<Mutation> optionalHeader() {
        Arbitrary<Mutation> wrongType = Combinators.combine(
                        Arbitraries.of("tenant_id", "causation_id", "traceparent"), notAString())
                .as((name, value) -> mutation(
                        "optional header",
                        name + " as " + AmqpHeaders.fieldType(value),
                        Rule.OPTIONAL_HEADER,
                        w -> w.headers(h -> {
                            h.put(name, value);
                            return h;
                        })));
        Arbitrary<Mutation> badTrace = Arbitraries.oneOf(
                        anyString(300, 300),
                        anyString(0, 60),
                        Arbitraries.of("00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", "garbage"))
                .filter(s -> !dev.outbox.Traceparent.isValid(s))
                .map(t -> mutation(
                        "optional header",
                        "traceparent '" + abbreviate(t) + "'",
                        Rule.OPTIONAL_HEADER,
                        w -> w.headers(h -> {
                            h.put("traceparent", t);
                            return h;
                        })));
        return Arbitraries.oneOf(wrongType, badTrace);
    }

    /** Through the contract's exchange with another routing key the queue is bound to. */
    static Arbitrary<Mutation> routing() {
        return Arbitraries.of(OTHER_BOUND_KEYS)
                .map(key -> mutation(
                        "routing",
                        "orders.events with routing key " + key,
                        Rule.ROUTING,
                        w -> new Wire(w.exchange, key, w.props, w.body)));
    }

    static Arbitrary<Mutation> truncatedBody() {
        return Arbitraries.integers()
                .between(0, 999)
                .map(permille -> mutation(
                        "body truncated",
                        "to " + permille / 10.0 + "%",
                        Rule.BODY_JSON,
                        w -> w.body(Arrays.copyOf(w.body, w.body.length * permille / 1000))));
    }

    /** A byte sequence no UTF-8 decoder accepts, spliced in at some point of the body. */
    static Arbitrary<Mutation> bodyNotUtf8() {
        Arbitrary<byte[]> invalid = Arbitraries.of(
                new byte[] {(byte) 0xff},
                new byte[] {(byte) 0xc3, (byte) 0x28},
                new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, // an unpaired surrogate, CESU-8 style
                new byte[] {(byte) 0xe2, (byte) 0x82},
                new byte[] {(byte) 0xf8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
                new byte[] {(byte) 0xc0, (byte) 0xaf}); // an overlong '/'
        return Combinators.combine(invalid, Arbitraries.doubles().between(0, 1))
                .as((bad, at) -> mutation(
                        "body not UTF-8", toHex(bad) + " at " + Math.round(at * 100) + "%", Rule.BODY_ENCODING, w -> {
                            int pos = (int) Math.round(w.body.length * at);
                            byte[] out = new byte[w.body.length + bad.length];
                            System.arraycopy(w.body, 0, out, 0, pos);
                            System.arraycopy(bad, 0, out, pos, bad.length);
                            System.arraycopy(w.body, pos, out, pos + bad.length, w.body.length - pos);
                            return w.body(out);
                        }));
    }

    static Arbitrary<Mutation> bodyNotTheSchema() {
        Arbitrary<Mutation> dropped = Arbitraries.of("paymentId", "amount", "currency", "capturedAt", "orderId")
                .map(field -> mutation(
                        "body schema",
                        "without " + field,
                        Rule.BODY_SCHEMA,
                        w -> w.body(json(w.bodyText()
                                .replaceFirst("\"" + field + "\":\"[^\"]*\",?", "")
                                .replace(",}", "}")))));
        Arbitrary<Mutation> amount = Arbitraries.of(
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
                        "true")
                .map(v -> mutation(
                        "body schema",
                        "amount " + v,
                        Rule.BODY_SCHEMA,
                        w -> w.body(json(w.bodyText().replaceFirst("\"amount\":\"[^\"]*\"", "\"amount\":" + v)))));
        Arbitrary<Mutation> currency = Arbitraries.strings()
                .withCharRange('a', 'z')
                .ofMinLength(0)
                .ofMaxLength(5)
                .map(c -> mutation(
                        "body schema",
                        "currency '" + c + "'",
                        Rule.BODY_SCHEMA,
                        w -> w.body(json(
                                w.bodyText().replaceFirst("\"currency\":\"[^\"]*\"", "\"currency\":\"" + c + "\"")))));
        Arbitrary<Mutation> notAnObject = Arbitraries.of("[]", "\"payment\"", "42", "null", "[{}]", "true")
                .map(v -> mutation("body schema", "the body " + v, Rule.BODY_SCHEMA, w -> w.body(json(v))));
        Arbitrary<Mutation> notJson = Arbitraries.of("", "{", "{}}", "{\"a\":1} {\"b\":2}", "not json", "{'a':1}")
                .map(v -> mutation("body not JSON", "'" + v + "'", Rule.BODY_JSON, w -> w.body(json(v))));
        Arbitrary<Mutation> duplicateKey = Arbitraries.just(mutation(
                "body not JSON",
                "amount twice",
                Rule.BODY_JSON,
                w -> w.body(json(w.bodyText().replaceFirst("\\{", "{\"amount\":\"1.00\",")))));
        Arbitrary<Mutation> otherAggregate = Arbitraries.just(mutation(
                "body schema",
                "orderId of another order",
                Rule.AGGREGATE_ID,
                w -> w.body(json(w.bodyText()
                        .replaceFirst("\"orderId\":\"[^\"]*\"", "\"orderId\":\"" + UUID.randomUUID() + "\"")))));
        return Arbitraries.oneOf(dropped, amount, currency, notAnObject, notJson, duplicateKey, otherAggregate);
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
