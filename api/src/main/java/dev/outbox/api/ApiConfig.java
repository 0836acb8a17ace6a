package dev.outbox.api;

import dev.outbox.config.Settings;

/** Where the API listens. */
public record ApiConfig(String host, int port) {
    public static ApiConfig from(Settings s) {
        return new ApiConfig(s.string("OUTBOX_HTTP_HOST", "0.0.0.0"), s.integer("OUTBOX_HTTP_PORT", 8080, 0, 65_535));
    }
}
