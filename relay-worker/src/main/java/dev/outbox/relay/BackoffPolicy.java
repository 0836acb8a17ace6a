package dev.outbox.relay;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Retry scheduling for rows, as a pure function of the attempt number. {@code schedule.get(n)}
 * is the delay before attempt {@code n + 1}: the default {@code 0s, 10s, 1m, 5m, 15m} means the
 * first attempt is immediate, the second 10 s after the first failed, and so on; after the last
 * scheduled attempt fails the row is parked. The size of the schedule is the attempt budget.
 *
 * <p>Delays have full jitter, uniform in [0, scheduled], so that rows which failed together (a
 * broker hiccup) do not come back together.
 */
public final class BackoffPolicy {
    private final List<Duration> schedule;
    private final DoubleSupplier random;

    public BackoffPolicy(List<Duration> schedule) {
        this(schedule, () -> ThreadLocalRandom.current().nextDouble());
    }

    public BackoffPolicy(List<Duration> schedule, DoubleSupplier random) {
        if (schedule.isEmpty()) {
            throw new IllegalArgumentException("the schedule needs at least one attempt");
        }
        this.schedule = List.copyOf(schedule);
        this.random = random;
    }

    /** What to do after an attempt failed with a retryable error. */
    public sealed interface Decision permits Retry, Park {}

    public record Retry(Duration delay) implements Decision {}

    public record Park(int attempts) implements Decision {}

    public int maxAttempts() {
        return schedule.size();
    }

    /**
     * @param attemptsMade attempts made so far, including the one that just failed (at least 1)
     */
    public Decision afterFailure(int attemptsMade) {
        if (attemptsMade < 1) {
            throw new IllegalArgumentException("at least one attempt was made, got " + attemptsMade);
        }
        if (attemptsMade >= schedule.size()) {
            return new Park(attemptsMade);
        }
        long ceiling = schedule.get(attemptsMade).toMillis();
        return new Retry(Duration.ofMillis((long) (random.getAsDouble() * ceiling)));
    }

    /**
     * A failed attempt's fate, the same in polling and CDC mode.
     *
     * @param retryAfter when to try again; null: park
     * @param detail what to record with the code
     */
    public record Verdict(Duration retryAfter, String detail) {
        public boolean park() {
            return retryAfter == null;
        }
    }

    /**
     * Parks a permanent failure at once; retries a retryable one on the schedule until it is spent.
     *
     * @param attemptsMade attempts made so far, including the one that just failed
     */
    public Verdict decide(dev.outbox.kernel.outbox.ErrorCode code, String detail, int attemptsMade) {
        if (!code.retryable()) {
            return new Verdict(null, detail);
        }
        if (afterFailure(Math.max(1, attemptsMade)) instanceof Retry retry) {
            return new Verdict(retry.delay(), detail);
        }
        return new Verdict(null, detail + " (all " + maxAttempts() + " attempts failed)");
    }
}
