package dev.outbox.messaging;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Capped exponential backoff with full jitter for reconnect loops: the n-th wait is uniform in
 * [0, min(cap, initial * 2^n)]. Jitter spreads a fleet of relays that lost the broker at the
 * same moment, so they do not reconnect in lock-step. Pure: the random source is injectable.
 */
public final class ExponentialBackoff {
    private final Duration initial;
    private final Duration cap;
    private final DoubleSupplier random;

    public ExponentialBackoff(Duration initial, Duration cap) {
        this(initial, cap, () -> ThreadLocalRandom.current().nextDouble());
    }

    public ExponentialBackoff(Duration initial, Duration cap, DoubleSupplier random) {
        if (initial.isNegative() || initial.isZero() || cap.compareTo(initial) < 0) {
            throw new IllegalArgumentException("need 0 < initial <= cap, got " + initial + " and " + cap);
        }
        this.initial = initial;
        this.cap = cap;
        this.random = random;
    }

    /** The ceiling of the {@code failures}-th wait (0-based), before jitter. */
    public Duration ceiling(int failures) {
        long ms = initial.toMillis();
        for (int i = 0; i < failures && ms < cap.toMillis(); i++) {
            ms *= 2;
        }
        return Duration.ofMillis(Math.min(ms, cap.toMillis()));
    }

    /** The wait after {@code failures} consecutive failures (0-based), jittered. */
    public Duration delay(int failures) {
        long ceiling = ceiling(failures).toMillis();
        // never zero: a tight reconnect loop is the retry storm this class exists to prevent
        return Duration.ofMillis(Math.max(initial.toMillis() / 2, (long) (random.getAsDouble() * ceiling)));
    }
}
