package dev.outbox.api.ops;

import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import dev.outbox.persistence.LeaseConfig;
import java.time.Duration;
import java.util.Optional;

/**
 * Operator access. {@code OUTBOX_OPS_TOKEN} may read and repair; {@code OUTBOX_OPS_READ_TOKEN}
 * may only read. With no operator token the repair endpoints answer 503 and say why (and reads
 * need the read token); with neither, every {@code /ops} endpoint does.
 */
public record OpsConfig(String operatorToken, String readToken, Duration relayLease) {
    public static final Setting<Optional<String>> TOKEN = Setting.optional(
            "OUTBOX_OPS_TOKEN",
            "text (secret)",
            "the repair endpoints answer `503 ops_disabled`",
            "bearer token of the operator API that may read and repair");
    public static final Setting<Optional<String>> READ_TOKEN = Setting.optional(
            "OUTBOX_OPS_READ_TOKEN",
            "text (secret)",
            "reads need the repair token",
            "bearer token of the operator API that may only read (a payload's size and SHA-256, not its content)");

    public static OpsConfig from(Settings s) {
        return new OpsConfig(s.get(TOKEN).orElse(null), s.get(READ_TOKEN).orElse(null), LeaseConfig.lease(s));
    }

    @Override
    public String toString() {
        return "OpsConfig[operatorToken=" + (operatorToken == null ? "unset" : "***") + ", readToken="
                + (readToken == null ? "unset" : "***") + "]";
    }
}
