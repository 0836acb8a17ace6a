package dev.outbox.consumer.runtime;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * What one consumer has done since it started, as {@link ConsumerRunner} counts it: each
 * delivery's outcome, its failures and dead letters, the channel and database troubles it rode
 * out. Exported as {@code outbox_consumer_*_total{consumer}} by {@link #bindTo}.
 */
public final class ConsumerStats {
    final LongAdder applied = new LongAdder();
    final LongAdder heldApplied = new LongAdder();
    final LongAdder duplicates = new LongAdder();
    final LongAdder held = new LongAdder();
    final LongAdder stale = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder deadLettered = new LongAdder();
    final LongAdder requeued = new LongAdder();
    final LongAdder deliveryErrors = new LongAdder();
    final LongAdder channelReopens = new LongAdder();
    final LongAdder recoveryErrors = new LongAdder();
    final LongAdder databaseWaits = new LongAdder();
    final AtomicInteger waitingForDatabase = new AtomicInteger();
    private final Map<WireContract.Rule, LongAdder> violations = new EnumMap<>(WireContract.Rule.class);

    ConsumerStats() {
        for (WireContract.Rule rule : WireContract.Rule.values()) {
            violations.put(rule, new LongAdder());
        }
    }

    void violated(WireContract.Rule rule) {
        violations.get(rule).increment();
    }

    /** Messages whose effect was applied when they arrived. */
    public long applied() {
        return applied.sum();
    }

    /** Held messages applied later, when their predecessor arrived. */
    public long heldApplied() {
        return heldApplied.sum();
    }

    public long duplicates() {
        return duplicates.sum();
    }

    public long held() {
        return held.sum();
    }

    public long stale() {
        return stale.sum();
    }

    /** Failed attempts (each retried or, at the last one, dead-lettered). */
    public long failures() {
        return failed.sum();
    }

    public long deadLettered() {
        return deadLettered.sum();
    }

    /** Deliveries given back to the broker to be tried again. */
    public long requeued() {
        return requeued.sum();
    }

    /** Errors caught at the delivery callback that the handling above did not expect. */
    public long deliveryErrors() {
        return deliveryErrors.sum();
    }

    /** Channels reopened after one closed or its consumer was cancelled. */
    public long channelReopens() {
        return channelReopens.sum();
    }

    /** Throwables caught on the recovery thread (each followed by another look at the channels). */
    public long recoveryErrors() {
        return recoveryErrors.sum();
    }

    /** Tries of a delivery that found the database away (each followed by a pause, never a requeue). */
    public long databaseWaits() {
        return databaseWaits.sum();
    }

    /** Deliveries held unacked right now until the database answers. */
    public int waitingForDatabase() {
        return waitingForDatabase.get();
    }

    /** Deliveries dead-lettered for breaking {@code rule} of the wire contract. */
    public long contractViolations(WireContract.Rule rule) {
        return violations.get(rule).sum();
    }

    /** Deliveries dead-lettered for breaking the wire contract, any rule. */
    public long contractViolations() {
        return violations.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** The counters as {@code outbox_consumer_*_total{consumer=...}}. */
    void bindTo(MeterRegistry registry, String consumer) {
        counter(
                registry,
                consumer,
                "applied",
                "messages whose effect was applied when they arrived",
                ConsumerStats::applied);
        counter(
                registry,
                consumer,
                "held.applied",
                "held messages applied after their predecessor",
                ConsumerStats::heldApplied);
        counter(
                registry,
                consumer,
                "duplicates",
                "deliveries already processed (no effect)",
                ConsumerStats::duplicates);
        counter(registry, consumer, "held", "deliveries held until their predecessor is applied", ConsumerStats::held);
        counter(
                registry,
                consumer,
                "stale",
                "deliveries older than the applied version (no effect)",
                ConsumerStats::stale);
        counter(
                registry,
                consumer,
                "failures",
                "failed attempts (retried, or dead-lettered at the last)",
                ConsumerStats::failures);
        counter(
                registry,
                consumer,
                "dead.lettered",
                "messages moved to the dead-letter queue",
                ConsumerStats::deadLettered);
        counter(
                registry,
                consumer,
                "requeued",
                "deliveries given back to the broker to try again",
                ConsumerStats::requeued);
        counter(
                registry,
                consumer,
                "delivery.errors",
                "errors caught at the delivery callback that nothing else handled",
                ConsumerStats::deliveryErrors);
        counter(
                registry,
                consumer,
                "channel.reopens",
                "consumer channels reopened after a close or a broker cancel",
                ConsumerStats::channelReopens);
        counter(
                registry,
                consumer,
                "recovery.errors",
                "throwables caught on the channel recovery thread (recovery carried on)",
                ConsumerStats::recoveryErrors);
        counter(
                registry,
                consumer,
                "database.waits",
                "tries of a delivery that found the database away (held unacked, not requeued)",
                ConsumerStats::databaseWaits);
        for (WireContract.Rule rule : WireContract.Rule.values()) {
            FunctionCounter.builder("outbox.consumer.contract.violations", this, s -> s.contractViolations(rule))
                    .description("deliveries dead-lettered for breaking the wire contract, by rule")
                    .tag("consumer", consumer)
                    .tag("rule", rule.id())
                    .register(registry);
        }
    }

    private void counter(
            MeterRegistry registry,
            String consumer,
            String name,
            String description,
            ToDoubleFunction<ConsumerStats> value) {
        FunctionCounter.builder("outbox.consumer." + name, this, value)
                .description(description)
                .tag("consumer", consumer)
                .register(registry);
    }

    /** Counts what a delivery's step did. */
    void count(IdempotentProcessor.Result result) {
        switch (result) {
            case APPLIED -> applied.increment();
            case DUPLICATE -> duplicates.increment();
            case HELD -> held.increment();
            case STALE -> stale.increment();
            default -> throw new IllegalStateException(result.name());
        }
    }
}
