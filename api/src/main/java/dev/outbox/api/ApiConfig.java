package dev.outbox.api;

import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import java.time.Duration;

/**
 * Where the API listens, how long an {@code Idempotency-Key} is remembered, and the largest
 * request body it reads ({@code OUTBOX_HTTP_MAX_BODY}; a larger one is answered 413 before it is
 * read).
 */
public record ApiConfig(String host, int port, Duration idempotencyRetention, long maxBodyBytes) {
    public static final long DEFAULT_MAX_BODY = 1024 * 1024;

    public static final Setting<String> HOST =
            Setting.text("OUTBOX_HTTP_HOST", "0.0.0.0", "the address the API listens on");
    public static final Setting<Integer> PORT =
            Setting.integer("OUTBOX_HTTP_PORT", 8080, 0, 65_535, "the API's port (`0` = any free port)");
    public static final Setting<Duration> IDEMPOTENCY_RETENTION = Setting.duration(
            "OUTBOX_IDEMPOTENCY_RETENTION",
            Duration.ofHours(24),
            Duration.ofMinutes(1),
            Duration.ofDays(365),
            "how long an `Idempotency-Key` is remembered");
    public static final Setting<Long> MAX_BODY = Setting.bytes(
            "OUTBOX_HTTP_MAX_BODY",
            DEFAULT_MAX_BODY,
            1024,
            64L * 1024 * 1024,
            "the largest request body the API reads; a larger one is answered `413` before it is read (see"
                    + " [HTTP API](../../api/README.md#http-api))");

    public static ApiConfig from(Settings s) {
        return new ApiConfig(s.get(HOST), s.get(PORT), s.get(IDEMPOTENCY_RETENTION), s.get(MAX_BODY));
    }
}
