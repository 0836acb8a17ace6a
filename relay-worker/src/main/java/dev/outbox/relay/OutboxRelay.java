package dev.outbox.relay;

import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.publish.PublishSpans;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay: the only code that publishes domain events. It runs {@link RelayConfig#publishers()}
 * {@link PublishLane}s that claim and publish, one {@link OutcomeRecorder} that writes fenced
 * marks in batches, and a timer that fails overdue confirms and recovers stale leases.
 *
 * <p>{@link #stop()} is the graceful shutdown: stop claiming, give back rows not yet sent, wait
 * up to the shutdown timeout for in-flight confirms, record what was confirmed, give back the
 * rest without counting an attempt, then close the channels. The broker session and the
 * database belong to the caller.
 */
public final class OutboxRelay {
    private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);

    private final RelayConfig config;
    private final OutboxStore store;
    private final BrokerSession session;
    private final RelayStats stats;
    private final BackoffPolicy backoff;
    private final Wakeup wakeup = new Wakeup();
    private final OutcomeRecorder recorder;
    private final WaitAnnouncer waits;
    private final ClaimGate claims = new ClaimGate();
    private final List<PublishLane> lanes = new ArrayList<>();
    private final SuspectIsolation suspects;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "relay-timer");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean started;

    public OutboxRelay(RelayConfig config, OutboxStore store, BrokerSession session, RelayStats stats) {
        this(config, store, session, stats, PublishSpans.OFF);
    }

    /** A relay whose every publish is a span of {@code spans} (ops/deploy/README.md, "Tracing"). */
    public OutboxRelay(
            RelayConfig config, OutboxStore store, BrokerSession session, RelayStats stats, PublishSpans spans) {
        this.config = config;
        this.store = store;
        this.session = session;
        this.stats = stats;
        this.backoff = new BackoffPolicy(config.backoff());
        this.recorder = new OutcomeRecorder(config.relayId(), store, stats, config.markBatchSize(), wakeup::signal);
        this.waits = new WaitAnnouncer(config.relayId(), store);
        for (int i = 0; i < config.publishers(); i++) {
            lanes.add(
                    new PublishLane(i, config, store, session, recorder, backoff, stats, wakeup, waits, claims, spans));
        }
        this.suspects = new SuspectIsolation(
                config,
                store,
                session,
                claims,
                lanes.get(0),
                recorder,
                stats,
                () -> lanes.stream().mapToInt(PublishLane::inFlight).sum(),
                spans);
    }

    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        started = true;
        recorder.start();
        lanes.forEach(PublishLane::start);
        suspects.start();
        long sweep = Math.max(10, Math.min(100, config.confirmTimeout().toMillis() / 10));
        timer.scheduleWithFixedDelay(
                surviving("confirm-timeout-sweep", stats, this::expireOverdue), sweep, sweep, TimeUnit.MILLISECONDS);
        timer.scheduleWithFixedDelay(
                surviving("stale-lease-recovery", stats, this::recoverStaleLeases),
                0,
                config.staleCheckInterval().toMillis(),
                TimeUnit.MILLISECONDS);
        LOG.info(
                "relay {} started: {} publisher(s), batch {}, confirm window {}, poll {} ms, confirm timeout {} ms,"
                        + " lease {} s, {} attempts",
                config.relayId(),
                config.publishers(),
                config.batchSize(),
                config.confirmWindow(),
                config.pollInterval().toMillis(),
                config.confirmTimeout().toMillis(),
                config.lease().toSeconds(),
                backoff.maxAttempts());
    }

    /** True between start and stop. */
    public boolean isRunning() {
        return started;
    }

    /**
     * Asks writers' transactions to notify while this relay waits for work (it listens for
     * {@code outbox_pending}); without this they never notify on its account.
     */
    public void announceWaits() {
        waits.enable();
    }

    /** Wakes idle publishers now instead of at the end of their poll interval. */
    public void wakeUp() {
        wakeup.signal();
    }

    /**
     * Rows of a dead relay were given back (as suspects): they are published one at a time, and
     * the versions behind them by the lanes once those are done; both start now.
     */
    void rowsGivenBack() {
        suspects.nudge();
        wakeup.signal();
    }

    /** Times the lanes were paused to publish suspects alone. */
    long suspectSlices() {
        return suspects.slices();
    }

    /** Whether lanes may claim now; {@link RelayLiveness} holds them back while it lacks the lock. */
    ClaimGate claims() {
        return claims;
    }

    public RelayStats stats() {
        return stats;
    }

    public RelayConfig config() {
        return config;
    }

    /** Rows this relay has sent and not yet seen settled. */
    public int inFlight() {
        return lanes.stream().mapToInt(PublishLane::inFlight).sum();
    }

    /**
     * A timer task that survives whatever it throws, an Error included: a task of a
     * {@link ScheduledExecutorService} that throws is silently never run again, and a relay whose
     * confirm-timeout sweep or stale-lease recovery stopped would look healthy while rows pile up.
     */
    static Runnable surviving(String where, RelayStats stats, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Throwable e) { // NOPMD: the task boundary, see above
                stats.unexpected(where);
                LOG.error("{} failed; it runs again at its next turn", where, e);
            }
        };
    }

    private void expireOverdue() {
        int expired = 0;
        for (PublishLane lane : lanes) {
            expired += lane.expireOverdue();
        }
        if (expired > 0) {
            // a connection that leaves confirms unanswered this long cannot be trusted with more
            session.recycle(expired + " message(s) had no confirm within "
                    + config.confirmTimeout().toMillis() + " ms");
        }
    }

    private void recoverStaleLeases() {
        try {
            List<OutboxMapper.StaleLease> released =
                    store.releaseStaleLocks(config.lease(), backoff.maxAttempts(), 1_000);
            for (OutboxMapper.StaleLease s : released) {
                stats.staleLockRecovered();
                org.slf4j.MDC.put("message_id", s.id().toString());
                try {
                    LOG.warn(
                            "recovered stale lease: message_id={} held by {} for over {} s is now {} (STALE_LOCK)",
                            s.id(),
                            s.lockedBy(),
                            config.lease().toSeconds(),
                            s.status());
                } finally {
                    org.slf4j.MDC.remove("message_id");
                }
            }
        } catch (DataAccessException e) {
            LOG.warn("stale-lease recovery skipped: {}", e.getMessage());
        }
    }

    /** Past the shutdown deadline, how long each publishing lane is still waited for. */
    static final Duration LANE_EXIT_SLACK = Duration.ofSeconds(1);

    /** How long the stop waits for the outcomes to be written before it leaves them to recovery. */
    static final Duration OUTCOME_FLUSH = Duration.ofSeconds(30);

    /**
     * The longest {@link #stop} waits for publishing to end and confirms to arrive: the suspect
     * thread gets half the shutdown timeout and then {@link SuspectIsolation#INTERRUPTED_EXIT};
     * the lanes, then their confirms, the rest of the deadline, each lane {@link #LANE_EXIT_SLACK}
     * past it. What follows (closing the channels, writing the outcomes within
     * {@link #OUTCOME_FLUSH}, withdrawing the wait registration) {@link RelayApp#stopBound} adds.
     */
    static Duration drainBound(RelayConfig config) {
        Duration timeout = config.shutdownTimeout();
        Duration suspects = timeout.dividedBy(2).plus(SuspectIsolation.INTERRUPTED_EXIT);
        Duration drain = timeout.compareTo(suspects) >= 0 ? timeout : suspects;
        return drain.plus(LANE_EXIT_SLACK.multipliedBy(config.publishers()));
    }

    /** Graceful stop within {@link RelayConfig#shutdownTimeout()} (plus the time to write marks). */
    public synchronized void stop() {
        if (!started) {
            return;
        }
        started = false;
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        try {
            // the lanes stop taking work at once; the suspect thread, which may hold them paused,
            // finishes the suspect in hand (or gives it back) within the shared deadline
            lanes.forEach(PublishLane::requestStop);
            wakeup.signal();
            suspects.stop(remaining(deadline).dividedBy(2));
            for (PublishLane lane : lanes) {
                if (!lane.awaitExit(remaining(deadline).plus(LANE_EXIT_SLACK))) {
                    LOG.warn("publisher did not stop in time; it may be blocked writing to the broker");
                }
            }
            boolean settled = true;
            for (PublishLane lane : lanes) {
                settled &= lane.awaitSettled(remaining(deadline));
            }
            timer.shutdownNow();
            int unknown = 0;
            for (PublishLane lane : lanes) {
                for (OutboxRecord row : lane.abandon()) {
                    recorder.add(new OutcomeRecorder.Released(row, null, null));
                    unknown++;
                }
            }
            if (!settled || unknown > 0) {
                LOG.warn(
                        "{} message(s) unconfirmed at shutdown are given back without counting the attempt; they"
                                + " may be published again (consumers deduplicate on messageId)",
                        unknown);
            }
            recorder.stopAndFlush(OUTCOME_FLUSH);
            waits.withdraw();
            LOG.info("relay {} stopped: {}", config.relayId(), stats);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("interrupted while stopping; unrecorded rows will be recovered as stale leases");
        }
    }

    private static Duration remaining(long deadlineNanos) {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }
}
