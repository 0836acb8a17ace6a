package dev.outbox.persistence;

import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import java.time.Duration;

/**
 * The claim's lease, declared here because two processes read it: the relay leases rows for
 * this long, and the operator API shows when a row's lease ends and lists the expired ones.
 */
public final class LeaseConfig {
    public static final Setting<Duration> LEASE = Setting.duration(
            "OUTBOX_RELAY_LEASE",
            Duration.ofMinutes(2),
            Duration.ofSeconds(1),
            Duration.ofHours(24),
            "lease length; at least 3× the confirm timeout");

    private LeaseConfig() {}

    public static Duration lease(Settings settings) {
        return settings.get(LEASE);
    }
}
