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
 * @param grace how long a relay whose lock is free may stay silent (no heartbeat) before its rows
 *     are given away; it must cover a live relay taking its lock again after its session was cut
 *     (a database failover cuts every session at once). Also how long a relay holds its own lock
 *     before it judges others, so that after a failover the first relay back does not find every
 *     peer "dead" before they had the time to reconnect
 */
record LivenessConfig(
        boolean enabled, Duration checkInterval, Duration silentHostTimeout, Duration forgetAfter, Duration grace) {
    private static final Duration RECONNECT_INITIAL = Duration.ofMillis(200);

    /** With the default grace for a database connect timeout of {@code connectTimeout}. */
    static LivenessConfig from(Settings s, Duration connectTimeout) {
        Duration checkInterval = s.duration(
                "OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL",
                Duration.ofSeconds(2),
                Duration.ofMillis(50),
                Duration.ofMinutes(1));
        return new LivenessConfig(
                s.bool("OUTBOX_RELAY_LIVENESS", true),
                checkInterval,
                s.duration(
                        "OUTBOX_RELAY_LIVENESS_TIMEOUT",
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(2),
                        Duration.ofMinutes(10)),
                s.duration(
                        "OUTBOX_RELAY_LIVENESS_FORGET_AFTER",
                        Duration.ofDays(1),
                        Duration.ofMinutes(1),
                        Duration.ofDays(365)),
                s.duration(
                        "OUTBOX_RELAY_LIVENESS_GRACE",
                        defaultGrace(checkInterval, connectTimeout),
                        Duration.ZERO,
                        Duration.ofHours(1)));
    }

    /**
     * A relay whose session is cut notices at its next check (one interval after its last
     * heartbeat at most), waits a moment, connects (up to the connect timeout) and takes its lock;
     * one more interval covers a first connect attempt that fails while the database comes back.
     * 2 × 2 s + 5 s = 9 s with the defaults.
     */
    static Duration defaultGrace(Duration checkInterval, Duration connectTimeout) {
        return checkInterval.multipliedBy(2).plus(connectTimeout);
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
