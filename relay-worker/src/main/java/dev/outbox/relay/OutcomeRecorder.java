package dev.outbox.relay;

import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.outbox.ErrorCode;
import dev.outbox.persistence.outbox.Failure;
import dev.outbox.persistence.outbox.Lease;
import dev.outbox.persistence.outbox.OutboxRecord;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Writes the outcomes of publish attempts back to the outbox, batched: every outcome that
 * arrived while the previous write ran goes into the next one, so a busy relay writes hundreds
 * of marks per statement and an idle one writes each mark at once. Every write is fenced; an
 * outcome whose lease was lost is logged and counted, never forced. When the database is down,
 * outcomes are kept and written when it returns (a lease lost meanwhile is fenced out, and the
 * row is published again: a duplicate, which consumers absorb).
 */
final class OutcomeRecorder implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(OutcomeRecorder.class);

    /** What happened to one leased row. */
    sealed interface Outcome permits Published, Failed, Released {
        OutboxRecord row();
    }

    record Published(OutboxRecord row, long confirmNanos) implements Outcome {
    }

    record Failed(OutboxRecord row, Failure failure) implements Outcome {
    }

    /** Not sent (or fate unknown at shutdown): give back without counting the attempt. */
    record Released(OutboxRecord row, ErrorCode reason, String detail) implements Outcome {
    }

    private final String relayId;
    private final OutboxStore store;
    private final RelayStats stats;
    private final int maxBatch;
    private final Duration faultDelay;
    private final Runnable afterPublished;
    private final LinkedBlockingQueue<Outcome> queue = new LinkedBlockingQueue<>();
    private final ExponentialBackoff dbBackoff = new ExponentialBackoff(Duration.ofMillis(200), Duration.ofSeconds(5));
    private volatile boolean running = true;
    private volatile Thread thread;

    OutcomeRecorder(String relayId, OutboxStore store, RelayStats stats, int maxBatch, Duration faultDelay,
            Runnable afterPublished) {
        this.afterPublished = afterPublished;
        this.relayId = relayId;
        this.store = store;
        this.stats = stats;
        this.maxBatch = maxBatch;
        this.faultDelay = faultDelay;
        if (!faultDelay.isZero()) {
            LOG.warn("OUTBOX_RELAY_FAULT_MARK_DELAY={} ms: every outcome is held that long before it is written"
                    + " (fault injection for the crash and fencing tests; never set this in production)",
                    faultDelay.toMillis());
        }
    }

    void add(Outcome outcome) {
        if (!faultDelay.isZero()) {
            String kind = outcome instanceof Published ? "confirmed" : outcome.getClass().getSimpleName()
                    .toLowerCase(java.util.Locale.ROOT);
            LOG.warn("fault injection: holding outcome {} of message_id={} unrecorded for {} ms", kind,
                    outcome.row().id(), faultDelay.toMillis());
        }
        queue.add(Objects.requireNonNull(outcome));
    }

    int backlog() {
        return queue.size();
    }

    void start() {
        thread = new Thread(this, "relay-recorder");
        thread.start();
    }

    /** Writes everything queued, then stops. */
    void stopAndFlush(Duration timeout) throws InterruptedException {
        running = false;
        Thread t = thread;
        if (t != null) {
            t.join(timeout.toMillis());
            if (t.isAlive()) {
                LOG.error("{} outcome(s) could not be written within {} ms; their rows stay leased until"
                        + " stale-lock recovery", queue.size(), timeout.toMillis());
                t.interrupt();
            }
        }
    }

    @Override
    public void run() {
        List<Outcome> batch = new ArrayList<>(maxBatch);
        int dbFailures = 0;
        while (running || !queue.isEmpty() || !batch.isEmpty()) {
            try {
                if (batch.isEmpty()) {
                    Outcome first = queue.poll(50, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    queue.drainTo(batch, maxBatch - 1);
                }
                if (!faultDelay.isZero()) {
                    holdForFaultInjection(batch);
                }
                write(batch);
                batch.clear();
                dbFailures = 0;
            } catch (DataAccessException e) {
                Duration wait = dbBackoff.delay(dbFailures++);
                LOG.warn("cannot record {} outcome(s) ({}); keeping them and retrying in {} ms", batch.size(),
                        e.getMessage(), wait.toMillis());
                try {
                    Thread.sleep(wait.toMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.error("unexpected failure recording {} outcome(s); their rows stay leased until stale-lock"
                        + " recovery", batch.size(), e);
                batch.clear();
            }
        }
    }

    private void write(List<Outcome> batch) {
        List<Lease> published = new ArrayList<>();
        List<Failure> failures = new ArrayList<>();
        Map<ErrorCode, List<Lease>> released = new HashMap<>();
        Map<ErrorCode, String> releaseDetail = new HashMap<>();
        Map<UUID, Outcome> byId = new HashMap<>();
        for (Outcome o : batch) {
            byId.put(o.row().id(), o);
            if (o instanceof Published p) {
                published.add(p.row().lease());
            } else if (o instanceof Failed f) {
                failures.add(f.failure());
            } else if (o instanceof Released r) {
                released.computeIfAbsent(r.reason(), k -> new ArrayList<>()).add(r.row().lease());
                releaseDetail.putIfAbsent(r.reason(), r.detail());
            }
        }
        if (!published.isEmpty()) {
            Set<UUID> changed = store.markPublished(relayId, published);
            lostLeases(published, changed, byId, "PUBLISHED");
            if (!changed.isEmpty()) {
                // the next version of these aggregates may be claimable now: do not wait a poll
                afterPublished.run();
            }
        }
        if (!failures.isEmpty()) {
            List<Lease> leases = failures.stream().map(Failure::lease).toList();
            Set<UUID> changed = store.recordFailures(relayId, failures);
            lostLeases(leases, changed, byId, "failure");
            for (Failure f : failures) {
                if (changed.contains(f.lease().id())) {
                    logFailure(byId.get(f.lease().id()).row(), f);
                }
            }
        }
        for (Map.Entry<ErrorCode, List<Lease>> e : released.entrySet()) {
            Set<UUID> changed = store.release(relayId, e.getValue(), e.getKey(), releaseDetail.get(e.getKey()));
            stats.released(changed.size());
            lostLeases(e.getValue(), changed, byId, "release");
        }
    }

    private void lostLeases(List<Lease> attempted, Set<UUID> changed, Map<UUID, Outcome> byId, String what) {
        if (changed.size() == attempted.size()) {
            return;
        }
        for (Lease l : attempted) {
            if (!changed.contains(l.id())) {
                stats.lostLease();
                OutboxRecord row = byId.get(l.id()).row();
                withRow(row, () -> LOG.warn("lost lease: could not record {} for message_id={} (token {}): another"
                        + " relay or stale-lock recovery took the row first; its outcome stands", what, l.id(),
                        l.token()));
            }
        }
    }

    private void logFailure(OutboxRecord row, Failure f) {
        withRow(row, () -> {
            if (f.park()) {
                LOG.error("parked message_id={} {} after {} attempt(s): {} {}", row.id(), row.messageType(),
                        row.attemptCount(), f.code(), f.message());
            } else {
                LOG.warn("attempt {} of message_id={} {} failed: {} {}; retry in {} ms", row.attemptCount(), row.id(),
                        row.messageType(), f.code(), f.message(), f.delay().toMillis());
            }
        });
    }

    private void holdForFaultInjection(List<Outcome> batch) throws InterruptedException {
        Thread.sleep(faultDelay.toMillis());
    }

    static void withRow(OutboxRecord row, Runnable log) {
        MDC.put("message_id", row.id().toString());
        MDC.put("aggregate_id", row.aggregateId());
        if (row.correlationId() != null) {
            MDC.put("correlation_id", row.correlationId());
        }
        try {
            log.run();
        } finally {
            MDC.remove("message_id");
            MDC.remove("aggregate_id");
            MDC.remove("correlation_id");
        }
    }
}
