package dev.outbox.api.ops;

import dev.outbox.api.http.StorableValues;
import dev.outbox.domain.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.UUID;

/** The opaque keyset cursor of a search: the {@code (created_at, id)} of the last row returned. */
final class Cursors {
    private Cursors() {}

    record Position(Instant createdAt, UUID id) {}

    static String encode(Instant createdAt, UUID id) {
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, createdAt);
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString((micros + ":" + id).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The position a cursor names. Anything this API did not issue is a 400: bad Base64, no id, and
     * a time PostgreSQL could not compare with (it would fail the query with a 500).
     */
    static Position decode(String cursor) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            int colon = text.indexOf(':');
            long micros = Long.parseLong(text.substring(0, colon));
            Instant createdAt = Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
            if (StorableValues.instantDefect(createdAt) == null) {
                return new Position(createdAt, UUID.fromString(text.substring(colon + 1)));
            }
        } catch (IllegalArgumentException | IndexOutOfBoundsException | ArithmeticException e) {
            // not one of ours: refused below
        }
        throw InvalidInputException.of("after", "is not a cursor returned by this API");
    }
}
