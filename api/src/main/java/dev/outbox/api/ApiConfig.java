package dev.outbox.api;

import dev.outbox.config.Settings;
import java.time.Duration;

/** Where the API listens, and how long an {@code Idempotency-Key} is remembered. */
public record ApiConfig(String host, int port, Duration idempotencyRetention) {
    public static ApiConfig from(Settings s) {
        return new ApiConfig(
                s.string("OUTBOX_HTTP_HOST", "0.0.0.0"),
                s.integer("OUTBOX_HTTP_PORT", 8080, 0, 65_535),
                s.duration(
                        "OUTBOX_IDEMPOTENCY_RETENTION",
                        Duration.ofHours(24),
                        Duration.ofMinutes(1),
                        Duration.ofDays(365)));
    }
}
