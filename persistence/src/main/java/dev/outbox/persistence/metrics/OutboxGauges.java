package dev.outbox.persistence.metrics;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.ops.OutboxStatsReader;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox's state as gauges: backlog per status, parked rows per error
 * code, the age of the oldest unpublished row, and aggregates blocked by a parked version. They
 * are read from the database, so each scrape reuses a snapshot for {@code ttl}: a dashboard
 * refreshing every second costs one set of indexed counts per {@code ttl}, not one per panel.
 * While the database is unreachable the gauges report NaN rather than stale numbers.
 *
 * <p>Codes and statuses are counted as the stored text. In a rolling upgrade a newer version may
 * park rows with an error code this version has no constant for, or put rows in a status it does
 * not know: such a code gets its own {@code outbox.parked.count{error_code}} series, and such a
 * status its own {@code outbox.unknown_status.count{status}} series, from the first snapshot that
 * holds it (a series appears at the scrape after; it stays, at 0 once no row has the value, as the
 * known codes' series do).
 */
public final class OutboxGauges {
    private static final Logger LOG = LoggerFactory.getLogger(OutboxGauges.class);

    private final MeterRegistry registry;
    private final OutboxStatsReader reader;
    private final long ttlNanos;
    /** The error codes and unknown statuses that have a series (registered once each). */
    private final Set<String> parkedCodes = ConcurrentHashMap.newKeySet();

    private final Set<String> unknownStatuses = ConcurrentHashMap.newKeySet();
    private volatile OutboxStatsReader.Snapshot snapshot;
    private volatile long readAtNanos;
    private volatile boolean failing;

    private OutboxGauges(MeterRegistry registry, OutboxStatsReader reader, Duration ttl) {
        this.registry = registry;
        this.reader = reader;
        this.ttlNanos = ttl.toNanos();
    }

    public static OutboxGauges register(MeterRegistry registry, OutboxStatsReader reader, Duration ttl) {
        OutboxGauges g = new OutboxGauges(registry, reader, ttl);
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
            g.parkedBy(code.name());
        }
        return g;
    }

    /** The parked-rows series of {@code code}, once: at 0 while no parked row has that code. */
    private void parkedBy(String code) {
        if (parkedCodes.add(code)) {
            Gauge.builder(
                            "outbox.parked.count",
                            this,
                            x -> x.value(s -> s.parkedByErrorCode().getOrDefault(code, 0L)))
                    .tag("error_code", code)
                    .strongReference(true)
                    .description("rows parked until an operator acts, by why")
                    .register(registry);
        }
    }

    /** The series of {@code status}, a status this version does not know, once. */
    private void inUnknownStatus(String status) {
        if (unknownStatuses.add(status)) {
            Gauge.builder(
                            "outbox.unknown_status.count",
                            this,
                            x -> x.value(s -> s.unknownStatuses().getOrDefault(status, 0L)))
                    .tag("status", status)
                    .strongReference(true)
                    .description("rows in a status this version does not know (a newer version's), by status")
                    .register(registry);
        }
    }

    /** Series for the codes and statuses a fresh snapshot holds that have none yet. */
    private void labelNew(OutboxStatsReader.Snapshot s) {
        for (String code : s.parkedByErrorCode().keySet()) {
            // never null: a parked row says why (message_outbox_failure_has_code, V1)
            parkedBy(code);
        }
        for (String status : s.unknownStatuses().keySet()) {
            inUnknownStatus(status);
        }
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
        OutboxStatsReader.Snapshot fresh = null;
        if (snapshot == null || now - readAtNanos > ttlNanos) {
            synchronized (this) {
                if (snapshot == null || now - readAtNanos > ttlNanos) {
                    try {
                        fresh = reader.read();
                        snapshot = fresh;
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
        if (fresh != null) {
            // outside the lock: registering takes the registry's own
            labelNew(fresh);
        }
        return snapshot;
    }
}
