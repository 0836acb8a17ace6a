package dev.outbox.relay;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.Lease;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DatabaseUnavailableException;
import dev.outbox.persistence.outbox.Failure;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the outcomes of publish attempts back to the outbox, batched: every outcome that
 * arrived while the previous write ran goes into the next one, so a busy relay writes hundreds
 * of marks per statement and an idle one writes each mark at once. Every write is fenced; an
 * outcome whose lease was lost is logged and counted, never forced. When the database is down,
 * outcomes are kept and written when it returns (a lease lost meanwhile is fenced out, and the
 * row is published again: a duplicate, which consumers absorb). A permanent error does not block
 * the outcomes behind it: the rows the database refuses are isolated, counted and left to
 * stale-lease recovery (see {@link #isolate}); nor does a statement that a reachable database
 * refuses every time (see {@link #REFUSALS_BEFORE_ISOLATING}). Nothing a write throws, an
 * {@link Error} included, ends the recorder: with it gone, outcomes would pile up unwritten.
 */
final class OutcomeRecorder implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(OutcomeRecorder.class);
    /** How often one outcome is tried alone before it is given up. */
    static final int SOLO_ATTEMPTS = 3;
    /**
     * How often in a row a statement refused by a reachable database (timeout, out of memory) or
     * a conflict is retried with the same outcomes before they are isolated like a permanent
     * error. Five tries, with about three seconds of backoff between them (plus each statement's
     * own time, up to the statement timeout): enough for a lock or a load spike to pass, short enough that an outcome refused every time (a statement timeout it always
     * runs into) does not hold up every outcome behind it. An unreachable database never counts
     * here: isolating would give outcomes up while it is away.
     */
    static final int REFUSALS_BEFORE_ISOLATING = 5;

    /** What happened to one leased row. */
    sealed interface Outcome permits Published, Failed, Released, Disowned {
        OutboxRecord row();
    }

    record Published(OutboxRecord row, long confirmNanos) implements Outcome {}

    record Failed(OutboxRecord row, Failure failure) implements Outcome {}

    /** Not sent (or fate unknown at shutdown): give back without counting the attempt. */
    record Released(OutboxRecord row, ErrorCode reason, String detail) implements Outcome {}

    /**
     * Leased by a claim whose commit went unanswered (the connection failed during it): the lease
     * exists if the commit was written, and not otherwise. Given back uncounted, fenced by its
     * token, so a lease that never existed changes nothing and is no lost lease either.
     */
    record Disowned(OutboxRecord row) implements Outcome {}

    private final String relayId;
    private final OutboxStore store;
    private final RelayStats stats;
    private final int maxBatch;
    private final Runnable afterPublished;
    private final LinkedBlockingQueue<Outcome> queue = new LinkedBlockingQueue<>();
    private final ExponentialBackoff dbBackoff = new ExponentialBackoff(Duration.ofMillis(200), Duration.ofSeconds(5));
    /** Outcomes taken from the queue and not yet written; only the recorder's thread touches it. */
    private final List<Outcome> batch;
    /** How many outcomes of {@link #batch} one write takes: all of them, except while isolating a refused row. */
    private int part;

    private int soloFailures;
    /** Consecutive failed writes because the database was away; only the recorder's thread touches it. */
    private int outages;
    /** Consecutive failed writes of the same outcomes refused by a reachable database. */
    private int refusals;

    private volatile boolean running = true;
    private volatile Thread thread;

    OutcomeRecorder(String relayId, OutboxStore store, RelayStats stats, int maxBatch, Runnable afterPublished) {
        this.afterPublished = afterPublished;
        this.relayId = relayId;
        this.store = store;
        this.stats = stats;
        this.maxBatch = maxBatch;
        this.batch = new ArrayList<>(maxBatch);
        this.part = maxBatch;
    }

    void add(Outcome outcome) {
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
                LOG.error(
                        "{} outcome(s) could not be written within {} ms; their rows stay leased until"
                                + " stale-lock recovery",
                        queue.size(),
                        timeout.toMillis());
                t.interrupt();
            }
        }
    }

    @Override
    public void run() {
        while (running || !queue.isEmpty() || !batch.isEmpty()) {
            try {
                if (batch.isEmpty()) {
                    Outcome first = queue.poll(50, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    queue.drainTo(batch, maxBatch - 1);
                    part = maxBatch;
                    refusals = 0;
                }
                write(new ArrayList<>(batch.subList(0, Math.min(part, batch.size()))));
                outages = 0;
                refusals = 0;
                soloFailures = 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Throwable e) { // NOPMD: the loop boundary, see the class comment
                try {
                    failed(e);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * What a failed write leads to; the outcomes that did not commit stay in {@link #batch}
     * whatever it was. An unreachable database is waited out, the outcomes kept, however long it
     * takes. A refusal or a conflict is waited out too, {@link #REFUSALS_BEFORE_ISOLATING} times
     * at most; anything else is isolated at once.
     */
    private void failed(Throwable e) throws InterruptedException {
        if (batch.isEmpty()) {
            // every outcome committed; what failed came after them (waking the publishers, say)
            stats.markFailed(false);
            LOG.error("unexpected failure after the outcomes were recorded; carrying on", e);
            return;
        }
        if (e instanceof DatabaseUnavailableException) {
            stats.markFailed(true);
            Duration wait = dbBackoff.delay(outages++);
            LOG.warn(
                    "cannot record {} outcome(s) ({}); keeping them and retrying in {} ms",
                    batch.size(),
                    e.getMessage(),
                    wait.toMillis());
            Thread.sleep(wait.toMillis());
            return;
        }
        if (e instanceof DataAccessException d && d.isTransient()) {
            stats.markFailed(true);
            boolean isolating = part < maxBatch;
            if (!isolating && ++refusals < REFUSALS_BEFORE_ISOLATING) {
                Duration wait = dbBackoff.delay(refusals - 1);
                LOG.warn(
                        "cannot record {} outcome(s) ({}); refused {} time(s) in a row, retrying in {} ms",
                        batch.size(),
                        e.getMessage(),
                        refusals,
                        wait.toMillis());
                Thread.sleep(wait.toMillis());
                return;
            }
            isolate(e);
            return;
        }
        stats.markFailed(false);
        if (e instanceof Error) {
            // a bug or a broken library, not the data: say so with the whole stack, once
            LOG.error("unexpected error while recording {} outcome(s); keeping them", batch.size(), e);
        }
        isolate(e);
    }

    /**
     * After a permanent failure (or a surprise) the outcomes that did not commit are written in
     * halves, so that a row the database refuses for good is found in a few statements and every
     * other outcome is still written. An outcome that fails alone {@link #SOLO_ATTEMPTS} times is
     * given up: its row stays leased until stale-lease recovery releases it (a confirmed one is
     * then published again, a duplicate consumers absorb), which beats blocking every outcome
     * behind it.
     */
    private void isolate(Throwable e) throws InterruptedException {
        int size = Math.min(part, batch.size());
        if (size > 1) {
            part = Math.max(1, size / 2);
            LOG.warn(
                    "cannot record {} outcome(s) ({}); writing them in parts of {} to find the one(s) the database"
                            + " refuses",
                    size,
                    describe(e),
                    part);
            return;
        }
        Outcome alone = batch.get(0);
        if (++soloFailures < SOLO_ATTEMPTS) {
            Duration wait = dbBackoff.delay(soloFailures);
            RowLog.withRow(
                    alone.row(),
                    () -> LOG.warn(
                            "cannot record {} for message_id={} ({}); trying it alone again in" + " {} ms",
                            kind(alone),
                            alone.row().id(),
                            describe(e),
                            wait.toMillis()));
            Thread.sleep(wait.toMillis());
            return;
        }
        batch.remove(0);
        soloFailures = 0;
        part = maxBatch;
        stats.outcomeUnrecorded();
        RowLog.withRow(
                alone.row(),
                () -> LOG.error(
                        "gave up recording {} for message_id={} {} after {} attempts ({}); the row"
                                + " stays leased by {} until stale-lease recovery releases it{}",
                        kind(alone),
                        alone.row().id(),
                        alone.row().messageType(),
                        SOLO_ATTEMPTS,
                        describe(e),
                        relayId,
                        alone instanceof Published ? ", and it will be published again with the same messageId" : "",
                        e));
    }

    private static String describe(Throwable e) {
        return e instanceof DataAccessException ? e.getMessage() : e.getClass().getName() + ": " + e.getMessage();
    }

    private static String kind(Outcome o) {
        return o instanceof Published
                ? "PUBLISHED"
                : o instanceof Failed
                        ? "the failed attempt"
                        : o instanceof Disowned ? "the disowned lease" : "the release";
    }

    /**
     * Writes {@code slice}, one statement per kind of outcome. Each statement commits on its own,
     * so whatever committed leaves {@link #batch} at once: if a later statement fails, only what
     * did not commit is written again (a second write of a committed outcome would be fenced out
     * and miscounted as a lost lease).
     */
    private void write(List<Outcome> slice) {
        List<Outcome> published = new ArrayList<>();
        List<Outcome> failed = new ArrayList<>();
        Map<ErrorCode, List<Outcome>> released = new LinkedHashMap<>();
        List<Outcome> disowned = new ArrayList<>();
        for (Outcome o : slice) {
            if (o instanceof Published) {
                published.add(o);
            } else if (o instanceof Failed) {
                failed.add(o);
            } else if (o instanceof Released r) {
                released.computeIfAbsent(r.reason(), k -> new ArrayList<>()).add(o);
            } else if (o instanceof Disowned) {
                disowned.add(o);
            }
        }
        if (!disowned.isEmpty()) {
            Set<UUID> changed = store.release(relayId, leases(disowned), null, null);
            committed(disowned);
            stats.released(changed.size());
            LOG.warn(
                    "gave back {} of {} row(s) leased by a claim whose commit went unanswered (the commit had {}been"
                            + " written); due again now, attempt not counted",
                    changed.size(),
                    disowned.size(),
                    changed.isEmpty() ? "not " : "");
        }
        if (!published.isEmpty()) {
            List<Lease> leases = leases(published);
            Set<UUID> changed = store.markPublished(relayId, leases);
            committed(published);
            lostLeases(published, changed, "PUBLISHED");
            if (!changed.isEmpty()) {
                // the next version of these aggregates may be claimable now: do not wait a poll
                afterPublished.run();
            }
        }
        if (!failed.isEmpty()) {
            List<Failure> failures =
                    failed.stream().map(o -> ((Failed) o).failure()).toList();
            Set<UUID> changed = store.recordFailures(relayId, failures);
            committed(failed);
            lostLeases(failed, changed, "failure");
            for (Outcome o : failed) {
                if (changed.contains(o.row().id())) {
                    RowLog.logFailure(o.row(), ((Failed) o).failure());
                }
            }
        }
        for (Map.Entry<ErrorCode, List<Outcome>> e : released.entrySet()) {
            Released first = (Released) e.getValue().get(0);
            Set<UUID> changed = store.release(relayId, leases(e.getValue()), e.getKey(), first.detail());
            committed(e.getValue());
            stats.released(changed.size());
            lostLeases(e.getValue(), changed, "release");
        }
    }

    private static List<Lease> leases(List<Outcome> outcomes) {
        return outcomes.stream().map(o -> o.row().lease()).toList();
    }

    private void committed(List<Outcome> written) {
        Set<Outcome> done = Collections.newSetFromMap(new IdentityHashMap<>());
        done.addAll(written);
        batch.removeIf(done::contains);
    }

    private void lostLeases(List<Outcome> attempted, Set<UUID> changed, String what) {
        if (changed.size() == attempted.size()) {
            return;
        }
        for (Outcome o : attempted) {
            if (!changed.contains(o.row().id())) {
                stats.lostLease();
                Lease l = o.row().lease();
                RowLog.withRow(
                        o.row(),
                        () -> LOG.warn(
                                "lost lease: could not record {} for message_id={} (token {}):"
                                        + " another relay or stale-lock recovery took the row first; its outcome stands",
                                what,
                                l.id(),
                                l.token()));
            }
        }
    }
}
