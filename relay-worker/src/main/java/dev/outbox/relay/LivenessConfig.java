package dev.outbox.relay;

import dev.outbox.config.Setting;
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

    static final Setting<Boolean> ENABLED = Setting.flag(
            "OUTBOX_RELAY_LIVENESS",
            true,
            "hold a PostgreSQL advisory lock for the relay's life so dead relays' rows come back in seconds;"
                    + " `false` leaves recovery to the lease (where a session cannot be kept, e.g. behind a"
                    + " transaction-mode pooler)");
    static final Setting<Duration> CHECK_INTERVAL = Setting.duration(
            "OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL",
            Duration.ofSeconds(2),
            Duration.ofMillis(50),
            Duration.ofMinutes(1),
            "how often a relay checks its own lock's session and looks for dead relays");
    static final Setting<Duration> TIMEOUT = Setting.duration(
            "OUTBOX_RELAY_LIVENESS_TIMEOUT",
            Duration.ofSeconds(10),
            Duration.ofSeconds(2),
            Duration.ofMinutes(10),
            "how long PostgreSQL waits for a relay host that stopped answering before ending its session"
                    + " (server-side TCP keepalives)");
    static final Setting<Duration> FORGET_AFTER = Setting.duration(
            "OUTBOX_RELAY_LIVENESS_FORGET_AFTER",
            Duration.ofDays(1),
            Duration.ofMinutes(1),
            Duration.ofDays(365),
            "a dead relay that holds no rows is removed from the registry after this");
    static final Setting<Duration> GRACE = Setting.duration(
                    "OUTBOX_RELAY_LIVENESS_GRACE",
                    null,
                    Duration.ZERO,
                    Duration.ofHours(1),
                    "a relay whose lock is free is dead only once its last heartbeat is older than this, and a relay"
                            + " sweeps only after holding its own lock this long: covers a live relay taking its"
                            + " lock again after its session was cut (a database failover cuts them all). Set the"
                            + " same on every relay; `0s` judges by the lock alone")
            .defaultShownAs("2 × `OUTBOX_RELAY_LIVENESS_CHECK_INTERVAL` + `OUTBOX_DB_CONNECT_TIMEOUT` (`9s`)");

    /** With the default grace for a database connect timeout of {@code connectTimeout}. */
    static LivenessConfig from(Settings s, Duration connectTimeout) {
        Duration checkInterval = s.get(CHECK_INTERVAL);
        return new LivenessConfig(
                s.get(ENABLED),
                checkInterval,
                s.get(TIMEOUT),
                s.get(FORGET_AFTER),
                s.get(GRACE, defaultGrace(checkInterval, connectTimeout)));
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
