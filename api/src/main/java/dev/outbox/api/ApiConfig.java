package dev.outbox.api;

import dev.outbox.config.Settings;
import java.time.Duration;

/**
 * Where the API listens, how long an {@code Idempotency-Key} is remembered, and the largest
 * request body it reads ({@code OUTBOX_HTTP_MAX_BODY}; a larger one is answered 413 before it is
 * read).
 */
public record ApiConfig(String host, int port, Duration idempotencyRetention, long maxBodyBytes) {
    public static final long DEFAULT_MAX_BODY = 1024 * 1024;

    public static ApiConfig from(Settings s) {
        return new ApiConfig(
                s.string("OUTBOX_HTTP_HOST", "0.0.0.0"),
                s.integer("OUTBOX_HTTP_PORT", 8080, 0, 65_535),
                s.duration(
                        "OUTBOX_IDEMPOTENCY_RETENTION",
                        Duration.ofHours(24),
                        Duration.ofMinutes(1),
                        Duration.ofDays(365)),
                s.bytes("OUTBOX_HTTP_MAX_BODY", DEFAULT_MAX_BODY, 1024, 64L * 1024 * 1024));
    }
}
