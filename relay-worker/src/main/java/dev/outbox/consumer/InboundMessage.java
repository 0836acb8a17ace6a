package dev.outbox.consumer;

import com.fasterxml.jackson.core.JsonProcessingException;
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
 * A delivered message as a consumer sees it: the contract's properties and headers, read once,
 * after {@link WireContract#check} found the delivery honours the contract it serves.
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

    /** The headers table as plain JSON values, read the same whether handled now or held first. */
    static Map<String, Object> jsonHeaders(Map<String, Object> raw) throws MalformedMessageException {
        return jsonTable(raw, 1);
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
}
