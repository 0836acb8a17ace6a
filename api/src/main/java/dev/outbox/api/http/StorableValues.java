package dev.outbox.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.domain.Violation;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What PostgreSQL can store, checked where a value enters the API (query, path, JSON body) so a
 * value it would refuse is a 400 naming the field instead of a 500 from deep inside a write:
 * {@code text} and {@code jsonb} refuse the NUL character (22021 / 22P05), UTF-8 has no encoding
 * for a lone UTF-16 surrogate, and a {@code timestamptz} ends in the year 294276. Instants are
 * held to four-digit years, the range ISO-8601 dates are written in without a sign.
 */
public final class StorableValues {
    public static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");
    /** A field name echoed in a path: anything else the client wrote there is shown as {@code *}. */
    private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z0-9_.$-]{1,64}");

    private StorableValues() {}

    /** Why this text cannot be stored, or null when it can. */
    public static String textDefect(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\0') {
                return "must not contain the NUL character (U+0000)";
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "must be valid Unicode text (it holds an unpaired surrogate)";
            }
        }
        return null;
    }

    /**
     * Where and why this JSON cannot be stored in a {@code jsonb} column, or null when it can: the
     * first string or field name holding text {@link #textDefect} refuses, or a number past what
     * {@code numeric} holds (131,072 digits before the point, 16,383 after). A document taken whole
     * (a contract, a queue declaration) is not read field by field, so its strings do not pass
     * through the mapper's check. {@code where} names the document; a field name in the path is
     * shown only when it looks like one.
     */
    public static Violation jsonDefect(String where, JsonNode node) {
        if (node.isTextual()) {
            String defect = textDefect(node.textValue());
            return defect == null ? null : new Violation(where, defect);
        }
        if (node.isNumber()) {
            BigDecimal n = node.decimalValue();
            boolean fits = n.precision() - n.scale() <= 131_072 && n.scale() <= 16_383;
            return fits ? null : new Violation(where, "must have at most 131072 digits before the point, 16383 after");
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                Violation v = jsonDefect(where + "[" + i + "]", node.get(i));
                if (v != null) {
                    return v;
                }
            }
        }
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String name = field.getKey();
            String at = where + "." + (FIELD_NAME.matcher(name).matches() ? name : "*");
            String defect = textDefect(name);
            Violation v = defect != null ? new Violation(at, "its name " + defect) : jsonDefect(at, field.getValue());
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /** Why this instant cannot be stored, or null when it can. */
    public static String instantDefect(Instant instant) {
        if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
            return "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z";
        }
        return null;
    }
}
