package dev.outbox.api.ops;

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

    static Position decode(String cursor) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            int colon = text.indexOf(':');
            long micros = Long.parseLong(text.substring(0, colon));
            return new Position(
                    Instant.EPOCH.plus(micros, ChronoUnit.MICROS), UUID.fromString(text.substring(colon + 1)));
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw InvalidInputException.of("after", "is not a cursor returned by this API");
        }
    }
}
