package dev.outbox.api.ops;

import dev.outbox.config.Settings;
import java.time.Duration;

/**
 * Operator access. {@code OUTBOX_OPS_TOKEN} may read and repair; {@code OUTBOX_OPS_READ_TOKEN}
 * may only read. With no operator token the repair endpoints answer 503 and say why (and reads
 * need the read token); with neither, every {@code /ops} endpoint does.
 */
public record OpsConfig(String operatorToken, String readToken, Duration relayLease) {
    public static OpsConfig from(Settings s) {
        return new OpsConfig(
                s.optional("OUTBOX_OPS_TOKEN").orElse(null),
                s.optional("OUTBOX_OPS_READ_TOKEN").orElse(null),
                s.duration("OUTBOX_RELAY_LEASE", Duration.ofMinutes(2), Duration.ofSeconds(1), Duration.ofHours(24)));
    }

    @Override
    public String toString() {
        return "OpsConfig[operatorToken=" + (operatorToken == null ? "unset" : "***") + ", readToken="
                + (readToken == null ? "unset" : "***") + "]";
    }
}
