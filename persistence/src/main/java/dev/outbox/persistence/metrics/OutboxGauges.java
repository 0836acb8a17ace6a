package dev.outbox.persistence.metrics;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.ops.OutboxStatsReader;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox's state as gauges: backlog per status, parked rows per error
 * code, the age of the oldest unpublished row, and aggregates blocked by a parked version. They
 * are read from the database, so each scrape reuses a snapshot for {@code ttl}: a dashboard
 * refreshing every second costs one set of indexed counts per {@code ttl}, not one per panel.
 * While the database is unreachable the gauges report NaN rather than stale numbers.
 */
public final class OutboxGauges {
    private static final Logger LOG = LoggerFactory.getLogger(OutboxGauges.class);

    private final OutboxStatsReader reader;
    private final long ttlNanos;
    private volatile OutboxStatsReader.Snapshot snapshot;
    private volatile long readAtNanos;
    private volatile boolean failing;

    private OutboxGauges(OutboxStatsReader reader, Duration ttl) {
        this.reader = reader;
        this.ttlNanos = ttl.toNanos();
    }

    public static OutboxGauges register(MeterRegistry registry, OutboxStatsReader reader, Duration ttl) {
        OutboxGauges g = new OutboxGauges(reader, ttl);
        g.gauge(
                registry,
                "outbox.pending.count",
                "rows waiting for their first attempt",
                s -> s.stats().pending());
        g.gauge(
                registry,
                "outbox.in_progress.count",
                "rows leased by a relay",
                s -> s.stats().inProgress());
        g.gauge(
                registry,
                "outbox.retryable_failed.count",
                "rows waiting to be retried",
                s -> s.stats().retryableFailed());
        Gauge.builder(
                        "outbox.oldest_pending_age",
                        g,
                        x -> x.value(s -> s.stats().oldestPendingAgeSeconds()))
                .baseUnit("seconds")
                .strongReference(true)
                .description("age of the oldest row not yet published (pending, retrying or leased); alert on this")
                .register(registry);
        g.gauge(
                registry,
                "outbox.blocked_aggregates",
                "aggregates whose next versions wait behind a parked one",
                s -> s.stats().blockedAggregates());
        g.gauge(
                registry,
                "outbox.published_last_hour",
                "rows published in the last hour",
                s -> s.stats().publishedLastHour());
        for (ErrorCode code : ErrorCode.values()) {
            Gauge.builder(
                            "outbox.parked.count",
                            g,
                            x -> x.value(s -> s.parkedByErrorCode().getOrDefault(code.name(), 0L)))
                    .tag("error_code", code.name())
                    .strongReference(true)
                    .description("rows parked until an operator acts, by why")
                    .register(registry);
        }
        return g;
    }

    private void gauge(
            MeterRegistry registry, String name, String description, ToDoubleFunction<OutboxStatsReader.Snapshot> f) {
        // strong: nothing else holds this object, and a weakly held gauge silently turns into NaN
        Gauge.builder(name, this, x -> x.value(f))
                .description(description)
                .strongReference(true)
                .register(registry);
    }

    private double value(ToDoubleFunction<OutboxStatsReader.Snapshot> f) {
        OutboxStatsReader.Snapshot s = current();
        return s == null ? Double.NaN : f.applyAsDouble(s);
    }

    /** The cached snapshot, refreshed when older than the ttl; null while the database is down. */
    public OutboxStatsReader.Snapshot current() {
        long now = System.nanoTime();
        if (snapshot == null || now - readAtNanos > ttlNanos) {
            synchronized (this) {
                if (snapshot == null || now - readAtNanos > ttlNanos) {
                    try {
                        snapshot = reader.read();
                        if (failing) {
                            LOG.info("outbox gauges readable again");
                        }
                        failing = false;
                    } catch (DataAccessException e) {
                        if (!failing) {
                            LOG.warn("outbox gauges unavailable: {}", e.getMessage());
                        }
                        failing = true;
                        snapshot = null;
                    }
                    readAtNanos = now;
                }
            }
        }
        return snapshot;
    }
}
