package dev.outbox.api.http;

import java.time.Instant;

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

    /** Why this instant cannot be stored, or null when it can. */
    public static String instantDefect(Instant instant) {
        if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
            return "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z";
        }
        return null;
    }
}
