package dev.outbox.consumer.runtime;

import com.rabbitmq.client.LongString;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An AMQP headers table read for the wire contract: each field the contract names, refused with
 * its rule when it is of the wrong type or not valid UTF-8, and the whole table as plain JSON
 * values ({@link dev.outbox.consumer.InboundMessage#headers}), read the same whether a message is
 * handled at once or held in the database first.
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

    /** The bytes as UTF-8, refusing malformed or unmappable input instead of replacing it. */
    static String strictUtf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes))
                .toString();
    }

    // the contract's header fields, each refused with its rule when it is not what the contract says

    static String requiredText(Map<String, Object> headers, String name, WireContract.Rule rule)
            throws WireContract.Violation {
        if (!headers.containsKey(name)) {
            throw new WireContract.Violation(rule, "no header " + name);
        }
        String value = text(headers, name, rule);
        if (value == null) {
            throw new WireContract.Violation(rule, "header " + name + " is null");
        }
        return value;
    }

    static String optionalText(Map<String, Object> headers, String name) throws WireContract.Violation {
        if (!headers.containsKey(name)) {
            return null;
        }
        String value = text(headers, name, WireContract.Rule.OPTIONAL_HEADER);
        if (value == null) {
            throw new WireContract.Violation(
                    WireContract.Rule.OPTIONAL_HEADER, "header " + name + " is null (leave it out instead)");
        }
        if (value.indexOf('\u0000') >= 0) {
            throw new WireContract.Violation(
                    WireContract.Rule.OPTIONAL_HEADER, "header " + name + " holds a NUL character");
        }
        return value;
    }

    /** An AMQP string, valid UTF-8; null when the field is void. */
    static String text(Map<String, Object> headers, String name, WireContract.Rule rule) throws WireContract.Violation {
        Object v = headers.get(name);
        if (v == null) {
            return null;
        }
        byte[] bytes;
        if (v instanceof LongString ls) {
            bytes = ls.getBytes();
        } else if (v instanceof String s) {
            return s;
        } else {
            throw new WireContract.Violation(rule, "header " + name + " is of type " + fieldType(v) + ", not a string");
        }
        try {
            return strictUtf8(bytes);
        } catch (CharacterCodingException e) {
            throw new WireContract.Violation(rule, "header " + name + " is not valid UTF-8");
        }
    }

    /** An AMQP integer field (byte, short, int, long); absent is a violation only when {@code required}. */
    static long integer(Map<String, Object> headers, String name, WireContract.Rule rule, boolean required)
            throws WireContract.Violation {
        if (!headers.containsKey(name)) {
            if (required) {
                throw new WireContract.Violation(rule, "no header " + name);
            }
            return 1;
        }
        Object v = headers.get(name);
        if (v == null) {
            throw new WireContract.Violation(rule, "header " + name + " is null");
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        throw new WireContract.Violation(rule, "header " + name + " is of type " + fieldType(v) + ", not an integer");
    }

    static String fieldType(Object v) {
        if (v instanceof byte[]) {
            return "byte array";
        }
        if (v instanceof Map) {
            return "table";
        }
        if (v instanceof List) {
            return "array";
        }
        if (v instanceof LongString) {
            return "string";
        }
        return v.getClass().getSimpleName();
    }
}
