package dev.outbox.relay;

import dev.outbox.kernel.outbox.ErrorCode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;

/**
 * What this relay did, as Micrometer meters (exposed in Prometheus format on the relay's
 * {@code /metrics}) and as plain numbers for logs and tests. The meters:
 * {@code outbox_publish_attempts_total}, {@code outbox_publish_successes_total},
 * {@code outbox_publish_failures_total{error_code}}, {@code outbox_confirm_latency_seconds},
 * {@code outbox_batch_size}, {@code outbox_stale_locks_total}, {@code outbox_lost_leases_total},
 * and {@code outbox_commit_to_publish_seconds} (row written to broker confirm); and how writing
 * outcomes fares: {@code outbox_relay_mark_failures_total{kind}} (statements that failed, transient
 * or permanent) and {@code outbox_relay_outcomes_unrecorded_total} (outcomes given up).
 */
public final class RelayStats {
    private final Counter attempts;
    private final Counter successes;
    private final Counter claims;
    private final Counter released;
    private final Counter lostLeases;
    private final Counter staleLocks;
    private final Counter transientMarkFailures;
    private final Counter permanentMarkFailures;
    private final Counter unrecorded;
    private final Counter suspectsAlone;
    private final Map<ErrorCode, Counter> failures = new EnumMap<>(ErrorCode.class);
    private final Timer confirmLatency;
    private final Timer commitToPublish;
    private final DistributionSummary batchSize;
    private volatile ConfirmTap confirmTap;
    private final MeterRegistry registry;

    public RelayStats() {
        this(new SimpleMeterRegistry());
    }

    public RelayStats(MeterRegistry registry) {
        this.registry = registry;
        attempts = Counter.builder("outbox.publish.attempts")
                .description("messages handed to the broker")
                .register(registry);
        successes = Counter.builder("outbox.publish.successes")
                .description("messages the broker confirmed")
                .register(registry);
        claims = Counter.builder("outbox.claims")
                .description("claim statements that leased rows")
                .register(registry);
        released = Counter.builder("outbox.released")
                .description("leased rows given back without counting an attempt")
                .register(registry);
        lostLeases = Counter.builder("outbox.lost.leases")
                .description("outcomes refused by the fence: another relay or recovery had the row")
                .register(registry);
        staleLocks = Counter.builder("outbox.stale.locks")
                .description("expired leases this relay recovered (STALE_LOCK)")
                .register(registry);
        transientMarkFailures = markFailures(registry, "transient");
        permanentMarkFailures = markFailures(registry, "permanent");
        unrecorded = Counter.builder("outbox.relay.outcomes.unrecorded")
                .description("outcomes the database refused for good: their rows stay leased until stale-lease"
                        + " recovery (a confirmed one is published again)")
                .register(registry);
        suspectsAlone = Counter.builder("outbox.relay.suspects.published.alone")
                .description("rows given back after a relay died (suspects), each published while this relay held"
                        + " nothing else")
                .register(registry);
        for (ErrorCode c : ErrorCode.values()) {
            failures.put(
                    c,
                    Counter.builder("outbox.publish.failures")
                            .tag("error_code", c.name())
                            .description("failed publish attempts, by why")
                            .register(registry));
        }
        confirmLatency = Timer.builder("outbox.confirm.latency")
                .description("publish to broker confirm")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofSeconds(30))
                .register(registry);
        commitToPublish = Timer.builder("outbox.commit.to.publish")
                .description("outbox row written to broker confirm")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry);
        batchSize = DistributionSummary.builder("outbox.batch.size")
                .description("rows leased per claim")
                .register(registry);
    }

    private static Counter markFailures(MeterRegistry registry, String kind) {
        return Counter.builder("outbox.relay.mark.failures")
                .tag("kind", kind)
                .description("statements writing publish outcomes that failed; transient ones are retried, after a"
                        + " permanent one the batch is split to find the rows the database refuses")
                .register(registry);
    }

    void claimed(int rows) {
        claims.increment();
        batchSize.record(rows);
    }

    void attempted() {
        attempts.increment();
    }

    /** Longer than any real backlog: a longer commit-to-publish time says more about created_at. */
    static final Duration PLAUSIBLE_BACKLOG = Duration.ofDays(366);

    void confirmed(UUID id, long confirmNanos, Duration sinceWritten) {
        ConfirmTap tap = confirmTap;
        if (tap != null) {
            tap.confirmed(id, confirmNanos);
        }
        successes.increment();
        if (confirmNanos > 0) {
            confirmLatency.record(Duration.ofNanos(confirmNanos));
        }
        // created_at is whatever the writer stored: a SQL client may say 4713 BC, which is no
        // commit time and would overflow the timer's nanoseconds
        if (!sinceWritten.isNegative() && sinceWritten.compareTo(PLAUSIBLE_BACKLOG) <= 0) {
            commitToPublish.record(sinceWritten);
        }
    }

    /**
     * Calls {@code tap} for every message the broker confirms, on the connection's thread, at the
     * moment the confirm arrives. The benchmark measures commit-to-publish with it; the tap must be
     * cheap and must not throw.
     */
    public void tapConfirms(ConfirmTap tap) {
        this.confirmTap = tap;
    }

    /** Sees each confirm: the message id, and how long the broker took from publish to confirm. */
    @FunctionalInterface
    public interface ConfirmTap {
        void confirmed(UUID id, long publishToConfirmNanos);
    }

    void failed(ErrorCode code) {
        failures.get(code).increment();
    }

    void released(int rows) {
        released.increment(rows);
    }

    void lostLease() {
        lostLeases.increment();
    }

    void markFailed(boolean isTransient) {
        (isTransient ? transientMarkFailures : permanentMarkFailures).increment();
    }

    /** A worker loop or timer task caught something nobody expected; it carries on. */
    void channelReplaced(String reason) {
        Counter.builder("outbox.relay.channel.replaced")
                .tag("reason", reason)
                .description("publisher channels the relay closed and reopened although they were open")
                .register(registry)
                .increment();
    }

    void unexpected(String where) {
        Counter.builder("outbox.relay.unexpected.failures")
                .tag("where", where)
                .description("exceptions and errors a publishing lane or the relay's timer caught and survived")
                .register(registry)
                .increment();
    }

    void suspectPublishedAlone() {
        suspectsAlone.increment();
    }

    public long suspectsPublishedAlone() {
        return (long) suspectsAlone.count();
    }

    void outcomeUnrecorded() {
        unrecorded.increment();
    }

    void staleLockRecovered() {
        staleLocks.increment();
    }

    public long claimed() {
        return (long) batchSize.totalAmount();
    }

    public long attempts() {
        return (long) attempts.count();
    }

    public long published() {
        return (long) successes.count();
    }

    public long released() {
        return (long) released.count();
    }

    public long lostLeases() {
        return (long) lostLeases.count();
    }

    /** Failed statements writing outcomes, transient or permanent. */
    public long markFailures(boolean isTransient) {
        return (long) (isTransient ? transientMarkFailures : permanentMarkFailures).count();
    }

    /** Outcomes given up after the database refused them for good. */
    public long outcomesUnrecorded() {
        return (long) unrecorded.count();
    }

    public long staleLeasesRecovered() {
        return (long) staleLocks.count();
    }

    public long failures(ErrorCode code) {
        return (long) failures.get(code).count();
    }

    public Map<ErrorCode, Long> failuresByCode() {
        Map<ErrorCode, Long> out = new EnumMap<>(ErrorCode.class);
        failures.forEach((k, v) -> {
            if (v.count() > 0) {
                out.put(k, (long) v.count());
            }
        });
        return out;
    }

    /** Confirm latency at a percentile (from the histogram), for logs and the benchmark. */
    public Duration confirmLatencyMax() {
        return Duration.ofNanos((long) confirmLatency.max(java.util.concurrent.TimeUnit.NANOSECONDS));
    }

    @Override
    public String toString() {
        return "claimed=" + claimed() + " published=" + published() + " released=" + released() + " failures="
                + failuresByCode() + " lostLeases=" + lostLeases() + " staleRecovered=" + staleLeasesRecovered();
    }
}
