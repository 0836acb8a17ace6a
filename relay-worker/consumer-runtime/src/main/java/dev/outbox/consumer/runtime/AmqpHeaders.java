package dev.outbox.consumer.runtime;

import com.rabbitmq.client.LongString;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An AMQP headers table as plain JSON values ({@link dev.outbox.consumer.InboundMessage#headers}),
 * read the same whether a message is handled at once or held in the database first.
 */
final class AmqpHeaders {
    /** Deeper header tables than this are refused: nothing in the contract nests at all. */
    static final int MAX_HEADER_DEPTH = 64;

    /** Thrown for a headers table that can never be read; the delivery breaks the wire contract. */
    static final class MalformedHeadersException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedHeadersException(String message) {
            super(message);
        }
    }

    private AmqpHeaders() {}

    /** The headers table as plain JSON values. */
    static Map<String, Object> toJson(Map<String, Object> raw) throws MalformedHeadersException {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : raw.entrySet()) {
            out.put(jsonText(e.getKey()), jsonValue(e.getValue(), 1));
        }
        return Collections.unmodifiableMap(out);
    }

    /**
     * One AMQP field value as a JSON value that PostgreSQL's {@code jsonb} accepts: text stays
     * text, binary becomes base64, a timestamp an ISO-8601 instant, a number that JSON cannot
     * write (NaN, infinity) its name as text.
     */
    private static Object jsonValue(Object v, int depth) throws MalformedHeadersException {
        if (depth > MAX_HEADER_DEPTH) {
            throw new MalformedHeadersException("headers nested deeper than " + MAX_HEADER_DEPTH + " levels");
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
            return jsonValue(Arrays.asList(a), depth);
        }
        return jsonText(v.toString());
    }

    /** jsonb refuses {@code \u0000}; a header is informational, so the NUL is replaced, not refused. */
    private static String jsonText(String s) {
        return s.indexOf('\u0000') < 0 ? s : s.replace('\u0000', '\uFFFD');
    }
}
