package dev.outbox.relay;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.cdc.CdcStore;
import dev.outbox.persistence.cdc.CdcWrite;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC relay's recorder, on a thread of its own ({@code relay-cdc-recorder}): writes the
 * broker's outcomes for streamed rows in batches, one statement per kind, keeps them through a
 * database outage, writes again those whose row this session cannot see yet, and hands every row
 * whose outcome is recorded (or needs none) back to the stream's thread, which only then lets the
 * slot's position pass its transaction. It owns the queues between the two threads and the count
 * of rows published whose outcome is not recorded yet, by which the stream throttles.
 */
final class CdcRecorder {
    // the relay's log category: these lines are the CDC relay's, as they always were
    private static final Logger LOG = LoggerFactory.getLogger(CdcRelay.class);

    /**
     * How long an outcome waits for its row to become visible before the relay gives up on it (a
     * row deleted right after its commit). Visibility follows the commit by microseconds to
     * milliseconds; the wait only bounds the odd case.
     */
    static final Duration VISIBILITY_WAIT = Duration.ofSeconds(10);

    /** What became of a streamed row: published ({@code code} null), failed, or left to the retry path. */
    record Outcome(CdcRow row, ErrorCode code, String detail, boolean leaveToRetryPath) {}

    /** A row whose outcome is recorded (or who needs none): {@code confirmed} when it was published. */
    record Resolved(CdcRow row, boolean confirmed) {}

    private final CdcStore store;
    private final BackoffPolicy backoff;
    private final RelayStats stats;
    private final int markBatchSize;
    private final CdcCounters counters;
    /** True while the stream's thread may still hand over outcomes. */
    private final BooleanSupplier streamGoing;

    /** Outcomes from the broker's thread, for the recorder. */
    private final LinkedBlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();
    /** Rows whose outcome is recorded (or who need none), for the stream's thread. */
    private final ConcurrentLinkedQueue<Resolved> resolved = new ConcurrentLinkedQueue<>();

    private final AtomicLong unrecorded = new AtomicLong();
    /** Outcomes whose rows were not visible yet when first written (recorder thread only). */
    private final Map<Outcome, Long> invisibleSince = new IdentityHashMap<>();

    CdcRecorder(
            CdcStore store,
            BackoffPolicy backoff,
            RelayStats stats,
            int markBatchSize,
            CdcCounters counters,
            BooleanSupplier streamGoing) {
        this.store = store;
        this.backoff = backoff;
        this.stats = stats;
        this.markBatchSize = markBatchSize;
        this.counters = counters;
        this.streamGoing = streamGoing;
    }

    /** Rows published (or refused before) whose outcome is not recorded yet. */
    long unrecorded() {
        return unrecorded.get();
    }

    /** A row is about to be published: its outcome will come. */
    void sending() {
        unrecorded.incrementAndGet();
    }

    /** The row {@link #sending} announced was not sent after all: no outcome will come. */
    void notSent() {
        unrecorded.decrementAndGet();
    }

    /** An outcome to record (the broker's thread, or the stream's for a row that cannot be sent). */
    void add(Outcome outcome) {
        outcomes.add(outcome);
    }

    /** A row left PENDING for the retry path: nothing to write, settled as far as the stream goes. */
    void leftPending(CdcRow row) {
        resolved.add(new Resolved(row, false));
    }

    /** The next row settled, for the stream's thread; null when there is none. */
    Resolved nextResolved() {
        return resolved.poll();
    }

    /** The recorder's loop: on until the stream's thread has ended and every outcome is written. */
    void run() {
        List<Outcome> batch = new ArrayList<>();
        int failures = 0;
        // on until the stream's thread has ended: while stopping, it waits for the outcomes in flight
        while (streamGoing.getAsBoolean() || !outcomes.isEmpty() || !batch.isEmpty()) {
            Outcome o;
            while (batch.size() < markBatchSize && (o = outcomes.poll()) != null) {
                batch.add(o);
            }
            if (batch.isEmpty()) {
                // wait for the broker's next answer rather than poll for it: on two cores shared with
                // the database and the broker, a thread waking 5,000 times a second costs them
                try {
                    o = outcomes.poll(50, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (o != null) {
                    batch.add(o);
                }
                continue;
            }
            try {
                Set<Outcome> unseen = write(batch);
                failures = 0;
                long now = System.nanoTime();
                List<Outcome> again = new ArrayList<>();
                for (Outcome done : batch) {
                    if (unseen.contains(done)) {
                        long since = invisibleSince.computeIfAbsent(done, k -> now);
                        if (now - since < VISIBILITY_WAIT.toNanos()) {
                            again.add(done);
                            continue;
                        }
                        invisibleSince.remove(done);
                        LOG.warn(
                                "row {} came through the slot but is not in the table {} ms later (deleted?):"
                                        + " nothing recorded for it",
                                done.row.record.id(),
                                VISIBILITY_WAIT.toMillis());
                        resolved.add(new Resolved(done.row, false));
                        unrecorded.decrementAndGet();
                        continue;
                    }
                    invisibleSince.remove(done);
                    // resolved before the count drops: a stopping stream that sees no outcome unrecorded
                    // must find every one of them to settle, or its last position misses them and the
                    // next reader streams them again
                    resolved.add(new Resolved(done.row, done.code == null && !done.leaveToRetryPath));
                    unrecorded.decrementAndGet();
                }
                batch.clear();
                if (!again.isEmpty()) {
                    // the committing session makes its transaction visible a moment after the stream
                    // delivered it: write these again shortly, before anything newer is settled behind them
                    counters.marksDeferred.addAndGet(again.size());
                    batch.addAll(again);
                    LockSupport.parkNanos(1_000_000);
                }
            } catch (DataAccessException e) {
                failures++;
                stats.outcomeUnrecorded();
                long delay = Math.min(5_000, 50L << Math.min(failures, 7));
                if (Integer.bitCount(failures) == 1) {
                    LOG.warn(
                            "cannot record {} outcome(s) ({}); retrying in {} ms", batch.size(), e.getMessage(), delay);
                }
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException ie) {
                    return;
                }
            } catch (Throwable e) { // NOPMD: the recorder must not end: outcomes would never be written
                stats.unexpected("cdc-recorder");
                LOG.error("recording outcomes failed; trying again", e);
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Writes the batch's outcomes; returns those whose rows this session does not see yet. */
    private Set<Outcome> write(List<Outcome> batch) {
        List<UUID> published = new ArrayList<>();
        List<CdcStore.Failure> failed = new ArrayList<>();
        for (Outcome o : batch) {
            if (o.leaveToRetryPath) {
                counters.leftToRetryPath.incrementAndGet();
            } else if (o.code == null) {
                published.add(o.row.record.id());
            } else {
                failed.add(decide(o.row.record, o.code, o.detail));
            }
        }
        // one statement per kind answers for every row it saw, from one snapshot (CdcMapper.xml)
        List<CdcWrite> answers = new ArrayList<>(store.markPublished(published));
        answers.addAll(store.recordFailures(failed));
        Set<UUID> seen = new HashSet<>();
        int stands = 0;
        for (CdcWrite a : answers) {
            seen.add(a.id());
            if (!a.written()) {
                stands++;
            }
        }
        if (stands > 0) {
            LOG.info(
                    "{} streamed row(s) were no longer PENDING when their outcome came (cancelled, or taken by the"
                            + " retry path): their state stands",
                    stands);
        }
        Set<Outcome> unseen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Outcome o : batch) {
            if (!o.leaveToRetryPath && !seen.contains(o.row.record.id())) {
                unseen.add(o);
            }
        }
        return unseen;
    }

    /** Parks permanent failures at once; retries the others on the backoff schedule, as polling does. */
    private CdcStore.Failure decide(OutboxRecord row, ErrorCode code, String detail) {
        // a streamed row was never claimed: this attempt is not counted in the row yet
        BackoffPolicy.Verdict v = backoff.decide(code, detail, row.attemptCount() + 1);
        return new CdcStore.Failure(row.id(), code, v.detail(), v.retryAfter());
    }
}
