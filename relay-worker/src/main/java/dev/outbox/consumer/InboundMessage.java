package dev.outbox.consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;
import dev.outbox.kernel.json.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A delivered message as a consumer sees it: the contract's properties and headers, read once.
 * {@link #parse} refuses a delivery that does not carry what the contract promises (a message
 * id above all: without it nothing can be deduplicated) or carries it in a shape that cannot be
 * trusted (a version that is not a positive whole number, an id with a NUL character).
 *
 * <p>{@link #headers} holds plain JSON values only (strings, numbers, booleans, null, maps,
 * lists), whatever AMQP field types arrived, so a message reads the same whether it is handled
 * at once or held in the database first and handled later.
 */
public record InboundMessage(
        String messageId,
        String messageType,
        int messageVersion,
        String aggregateType,
        String aggregateId,
        Long aggregateVersion,
        String correlationId,
        Map<String, Object> headers,
        byte[] body,
        boolean redelivered) {

    /** Deeper header tables than this are refused: nothing in the contract nests at all. */
    static final int MAX_HEADER_DEPTH = 64;

    /** Thrown for a delivery that breaks the wire contract; it can never be processed. */
    public static final class MalformedMessageException extends Exception {
        private static final long serialVersionUID = 1L;

        public MalformedMessageException(String message) {
            super(message);
        }
    }

    public static InboundMessage parse(Delivery delivery) throws MalformedMessageException {
        AMQP.BasicProperties p = delivery.getProperties();
        String messageId = p.getMessageId();
        if (messageId == null || messageId.isBlank()) {
            throw new MalformedMessageException("no messageId: it cannot be deduplicated");
        }
        Map<String, Object> raw = p.getHeaders() == null ? Map.of() : p.getHeaders();
        String type = p.getType() != null ? p.getType() : text(raw, "message_type");
        if (type == null || type.isBlank()) {
            throw new MalformedMessageException("no message type (property type or header message_type)");
        }
        Long messageVersion = wholeNumber(raw, "message_version");
        if (messageVersion != null && (messageVersion < 1 || messageVersion > Integer.MAX_VALUE)) {
            throw new MalformedMessageException(
                    "header message_version " + messageVersion + " is not in 1.." + Integer.MAX_VALUE);
        }
        String aggregateType = text(raw, "aggregate_type");
        String aggregateId = text(raw, "aggregate_id");
        Long aggregateVersion = wholeNumber(raw, "aggregate_version");
        if (aggregateVersion != null) {
            if (aggregateVersion < 1) {
                throw new MalformedMessageException(
                        "header aggregate_version " + aggregateVersion + " is not positive");
            }
            if (aggregateType == null || aggregateId == null) {
                throw new MalformedMessageException(
                        "header aggregate_version without aggregate_type and" + " aggregate_id: it cannot be ordered");
            }
        }
        String correlationId = p.getCorrelationId();
        // PostgreSQL text cannot hold NUL: such an id could be neither recorded nor held
        requireNoNul("messageId", messageId);
        requireNoNul("type", type);
        requireNoNul("aggregate_type", aggregateType);
        requireNoNul("aggregate_id", aggregateId);
        requireNoNul("correlationId", correlationId);
        Map<String, Object> headers = jsonTable(raw, 1);
        return new InboundMessage(
                messageId,
                type,
                messageVersion == null ? 1 : messageVersion.intValue(),
                aggregateType,
                aggregateId,
                aggregateVersion,
                correlationId,
                headers,
                delivery.getBody() == null ? new byte[0] : delivery.getBody(),
                delivery.getEnvelope().isRedeliver());
    }

    /**
     * How many times the broker delivered this message before this delivery: a quorum queue's
     * {@code x-delivery-count} (every nack-requeue, channel close and consumer crash counts, not
     * only this consumer's counted failures); on a classic queue, which keeps no count, 1 for a
     * redelivery and 0 otherwise.
     */
    public long deliveryCount() {
        if (headers.get("x-delivery-count") instanceof Number n && n.longValue() >= 0) {
            return n.longValue();
        }
        return redelivered ? 1 : 0;
    }

    /** True when the message carries its aggregate and version, so it can be applied in order. */
    public boolean isOrdered() {
        return aggregateVersion != null && aggregateType != null && aggregateId != null;
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The body as a JSON tree (maps, lists, strings, BigDecimal numbers...). */
    public Object payload() throws JsonProcessingException {
        return Json.parseTree(bodyText());
    }

    /** A contract header that must be text: absent, or a string. */
    private static String text(Map<String, Object> headers, String name) throws MalformedMessageException {
        Object v = headers.get(name);
        if (v == null) {
            return null;
        }
        if (v instanceof LongString ls) {
            return ls.toString();
        }
        if (v instanceof String s) {
            return s;
        }
        throw new MalformedMessageException("header " + name + " is of type " + fieldType(v) + ", not a string");
    }

    /**
     * A contract header that must be a whole number: absent, an integral field, a decimal without
     * a fraction, or decimal digits as text. Anything else (fractions, floating point, overflow,
     * timestamps, tables) is refused rather than rounded, wrapped or ignored.
     */
    private static Long wholeNumber(Map<String, Object> headers, String name) throws MalformedMessageException {
        Object v = headers.get(name);
        if (v == null) {
            return null;
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        String text;
        if (v instanceof BigDecimal d) {
            text = d.toPlainString();
        } else if (v instanceof LongString || v instanceof String) {
            text = v.toString();
        } else {
            throw new MalformedMessageException(
                    "header " + name + " is of type " + fieldType(v) + ", not a whole number");
        }
        try {
            return new BigDecimal(text).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new MalformedMessageException(
                    "header " + name + " '" + abbreviate(text) + "' is not a whole number in the range of a long");
        }
    }

    private static void requireNoNul(String what, String value) throws MalformedMessageException {
        if (value != null && value.indexOf('\u0000') >= 0) {
            throw new MalformedMessageException(what + " contains a NUL character");
        }
    }

    private static Map<String, Object> jsonTable(Map<String, Object> table, int depth)
            throws MalformedMessageException {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : table.entrySet()) {
            out.put(jsonText(e.getKey()), jsonValue(e.getValue(), depth));
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * One AMQP field value as a JSON value that PostgreSQL's {@code jsonb} accepts: text stays
     * text, binary becomes base64, a timestamp an ISO-8601 instant, a number that JSON cannot
     * write (NaN, infinity) its name as text.
     */
    private static Object jsonValue(Object v, int depth) throws MalformedMessageException {
        if (depth > MAX_HEADER_DEPTH) {
            throw new MalformedMessageException("headers nested deeper than " + MAX_HEADER_DEPTH + " levels");
        }
        if (v == null
                || v instanceof Boolean
                || v instanceof Integer
                || v instanceof Long
                || v instanceof Short
                || v instanceof Byte
                || v instanceof BigDecimal
                || v instanceof BigInteger) {
            return v;
        }
        if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? d.toString() : BigDecimal.valueOf(d);
        }
        if (v instanceof Float f) {
            return f.isNaN() || f.isInfinite() ? f.toString() : new BigDecimal(f.toString());
        }
        if (v instanceof LongString || v instanceof String) {
            return jsonText(v.toString());
        }
        if (v instanceof byte[] b) {
            return Base64.getEncoder().encodeToString(b);
        }
        if (v instanceof Date d) {
            return d.toInstant().toString();
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.put(jsonText(String.valueOf(e.getKey())), jsonValue(e.getValue(), depth + 1));
            }
            return Collections.unmodifiableMap(out);
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object o : l) {
                out.add(jsonValue(o, depth + 1));
            }
            return Collections.unmodifiableList(out);
        }
        if (v instanceof Object[] a) {
            return jsonValue(java.util.Arrays.asList(a), depth);
        }
        return jsonText(v.toString());
    }

    /** jsonb refuses {@code \u0000}; a header is informational, so the NUL is replaced, not refused. */
    private static String jsonText(String s) {
        return s.indexOf('\u0000') < 0 ? s : s.replace('\u0000', '\uFFFD');
    }

    private static String fieldType(Object v) {
        if (v instanceof byte[]) {
            return "byte array";
        }
        if (v instanceof Map) {
            return "table";
        }
        if (v instanceof List) {
            return "array";
        }
        return v.getClass().getSimpleName();
    }

    private static String abbreviate(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
