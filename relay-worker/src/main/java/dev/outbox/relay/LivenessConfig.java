package dev.outbox.relay;

import dev.outbox.config.Settings;
import dev.outbox.messaging.ExponentialBackoff;
import java.time.Duration;

/**
 * How a relay proves it is alive and finds dead ones ({@link RelayLiveness}); each knob has an
 * {@code OUTBOX_RELAY_LIVENESS*} variable (see the README).
 *
 * @param enabled hold a liveness lock and recover dead relays' rows; false leaves only the lease
 *     (for a connection path that cannot keep a session, such as a transaction-mode pooler)
 * @param checkInterval how often the lock's session is checked and dead relays are looked for
 * @param silentHostTimeout how long PostgreSQL waits for a host that stopped answering before it
 *     ends the relay's session, freeing its lock (server-side TCP keepalives)
 * @param forgetAfter how long a dead relay that holds nothing stays in the registry
 */
record LivenessConfig(boolean enabled, Duration checkInterval, Duration silentHostTimeout, Duration forgetAfter) {
    private static final Duration RECONNECT_INITIAL = Duration.ofMillis(200);

    static LivenessConfig from(Settings s) {
        return new LivenessConfig(
                s.bool("OUTBOX_RELAY_LIVENESS", true),
                s.duration(
                        "OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL",
                        Duration.ofSeconds(2),
                        Duration.ofMillis(50),
                        Duration.ofMinutes(1)),
                s.duration(
                        "OUTBOX_RELAY_LIVENESS_TIMEOUT",
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(2),
                        Duration.ofMinutes(10)),
                s.duration(
                        "OUTBOX_RELAY_LIVENESS_FORGET_AFTER",
                        Duration.ofDays(1),
                        Duration.ofMinutes(1),
                        Duration.ofDays(365)));
    }

    /**
     * How long the liveness lock's holder waits between failed attempts to take it. Capped at the
     * check interval, not at the broker's reconnect cap: the claim gate stays shut until the lock is
     * held, so after a database outage every second of backoff is a second the relay claims nothing.
     */
    ExponentialBackoff reconnectBackoff() {
        Duration initial = checkInterval.compareTo(RECONNECT_INITIAL) < 0 ? checkInterval : RECONNECT_INITIAL;
        return new ExponentialBackoff(initial, checkInterval);
    }
}
