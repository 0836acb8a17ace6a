package dev.outbox.relay;

import com.rabbitmq.client.Connection;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.PublishListener;
import dev.outbox.messaging.publish.PublishSpans;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.outbox.Failure;
import dev.outbox.persistence.outbox.OutboxStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One publishing thread with its own confirm channel: claim a batch no larger than the free
 * confirm window, publish it without waiting, claim again. Confirms settle on the connection's
 * thread and go to the {@link OutcomeRecorder}; this thread never waits for a confirm, and never
 * holds a database transaction while it talks to the broker.
 */
final class PublishLane implements Runnable, PublishListener<OutboxRecord> {
    private static final Logger LOG = LoggerFactory.getLogger(PublishLane.class);

    /** A message in flight when its channel was closed with a destination error. */
    private record Suspect(OutboxRecord row, ErrorCode code, String detail) {}

    private final int index;
    private final RelayConfig config;
    private final OutboxStore store;
    private final BrokerSession session;
    private final OutcomeRecorder recorder;
    private final BackoffPolicy backoff;
    private final RelayStats stats;
    private final Wakeup wakeup;
    private final WaitAnnouncer waits;
    private final ClaimGate claims;
    private final PublishSpans spans;
    private final ConcurrentLinkedQueue<Suspect> suspects = new ConcurrentLinkedQueue<>();
    private final ExponentialBackoff dbBackoff = new ExponentialBackoff(Duration.ofMillis(200), Duration.ofSeconds(5));
    private volatile ConfirmPublisher<OutboxRecord> publisher;
    private volatile Connection publisherConnection;
    private volatile boolean stopping;
    private Thread thread;

    PublishLane(
            int index,
            RelayConfig config,
            OutboxStore store,
            BrokerSession session,
            OutcomeRecorder recorder,
            BackoffPolicy backoff,
            RelayStats stats,
            Wakeup wakeup,
            WaitAnnouncer waits,
            ClaimGate claims,
            PublishSpans spans) {
        this.spans = spans;
        this.waits = waits;
        this.claims = claims;
        this.index = index;
        this.config = config;
        this.store = store;
        this.session = session;
        this.recorder = recorder;
        this.backoff = backoff;
        this.stats = stats;
        this.wakeup = wakeup;
    }

    void start() {
        thread = new Thread(this, "relay-publisher-" + index);
        thread.start();
    }

    @Override
    public void run() {
        int dbFailures = 0;
        while (!stopping) {
            long generation = wakeup.generation();
            try {
                if (!suspects.isEmpty()) {
                    if (!isolateSuspects()) {
                        session.awaitAvailable(Duration.ofSeconds(1));
                    }
                    continue;
                }
                if (!claims.isOpen()) {
                    claims.awaitOpen(Duration.ofSeconds(1));
                    continue;
                }
                Connection connection = session.connection();
                if (connection == null) {
                    // breaker open: claim nothing, burn no attempts
                    session.awaitAvailable(Duration.ofSeconds(1));
                    continue;
                }
                ConfirmPublisher<OutboxRecord> p = publisherOn(connection);
                int free = p.availableSlots();
                if (free == 0) {
                    if (p.acquireSlot(config.pollInterval())) {
                        p.releaseSlot();
                    }
                    continue;
                }
                if (!claims.tryEnter()) {
                    continue; // closed, or paused for suspects, since the look above
                }
                List<OutboxRecord> rows;
                try {
                    rows = UnansweredClaims.claim(
                            recorder, leased -> claim(Math.min(config.batchSize(), free), leased));
                    if (!rows.isEmpty()) {
                        stats.claimed(rows.size());
                        publishAll(p, rows);
                    }
                } finally {
                    // a pause for suspects waits for this: what the lane claimed is sent or given back
                    claims.exit();
                }
                if (dbFailures > 0) {
                    LOG.info("database reachable again after {} failed attempt(s)", dbFailures);
                    dbFailures = 0;
                }
                if (rows.isEmpty()) {
                    if (!waits.beforeWaiting(index)) {
                        wakeup.await(config.pollInterval(), generation);
                    }
                    continue;
                }
                waits.busy(index);
            } catch (DataAccessException e) {
                Duration wait = dbBackoff.delay(dbFailures);
                if (dbFailures == 0 || Integer.bitCount(dbFailures) == 1) {
                    LOG.warn(
                            "cannot claim from the outbox ({}); attempt {} failed, retrying in {} ms",
                            e.getMessage(),
                            dbFailures + 1,
                            wait.toMillis());
                }
                dbFailures++;
                pause(wait);
            } catch (IOException e) {
                LOG.warn("cannot open a publisher channel ({}); retrying", e.getMessage());
                pause(Duration.ofMillis(500));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                // a relay never dies of a surprise, an Error included (a lane that ended here would leave
                // the relay looking alive while it publishes nothing): log it loudly, count it, go on
                stats.unexpected("publisher");
                LOG.error("unexpected failure in publisher {}; continuing", index, e);
                pause(Duration.ofSeconds(1));
            }
        }
    }

    private List<OutboxRecord> claim(int limit, Consumer<List<OutboxRecord>> leased) {
        return store.claim(config.relayId(), limit, config.unorderedTypes(), claims.fenced(), config.cdcSlot(), leased);
    }

    /** Nacks in a row, with no ack between them, after which a publisher channel is replaced. */
    static final int NACK_STREAK_LIMIT = 20;

    private ConfirmPublisher<OutboxRecord> publisherOn(Connection connection) throws IOException {
        ConfirmPublisher<OutboxRecord> p = publisher;
        if (p != null && p.isOpen() && publisherConnection == connection) {
            if (p.nackStreak() < NACK_STREAK_LIMIT) {
                return p;
            }
            // nacked and nacked again, never acked: a stuck channel, not a refusing broker (see
            // ConfirmPublisher#nackStreak). What it still has in flight is reported by its close.
            stats.channelReplaced("nacked");
            LOG.warn(
                    "publisher {}: {} messages nacked in a row on this channel and none acked; opening a new one",
                    index,
                    p.nackStreak());
        }
        if (p != null && p.retiredBecause().isPresent()) {
            stats.channelReplaced("retired");
        }
        if (p != null) {
            p.close();
        }
        p = ConfirmPublisher.open(
                connection, config.confirmWindow(), session.config().maxMessageBytes(), this, spans);
        publisher = p;
        publisherConnection = connection;
        return p;
    }

    private void publishAll(ConfirmPublisher<OutboxRecord> p, List<OutboxRecord> rows) throws InterruptedException {
        int i = 0;
        // whether row i's outcome has been handed over (reported, or taken by the publisher)
        boolean handedOver = false;
        try {
            for (; i < rows.size(); i++) {
                handedOver = false;
                OutboxRecord row = rows.get(i);
                if (stopping) {
                    releaseFrom(rows, i, null, "relay stopping before this row was sent");
                    return;
                }
                AmqpMessageMapper.Mapped mapped = config.contracts().map(row);
                if (mapped instanceof AmqpMessageMapper.Invalid invalid) {
                    handedOver = true;
                    failed(row, invalid.code(), invalid.reason());
                    continue;
                }
                if (!p.acquireSlot(config.confirmTimeout())) {
                    releaseFrom(rows, i, ErrorCode.CONFIRM_TIMEOUT, "confirm window stayed full; not sent");
                    return;
                }
                try {
                    p.publish(((AmqpMessageMapper.Ready) mapped).message(), row);
                    handedOver = true;
                    stats.attempted();
                } catch (IOException e) {
                    // the channel or connection is gone: this row and the rest were never handed over.
                    // With the connection gone the broker is unavailable; with only the channel closed
                    // (a channel error on another row) a fresh channel takes them at once.
                    boolean brokerGone = session.connection() == null;
                    releaseFrom(
                            rows,
                            i,
                            brokerGone ? ErrorCode.BROKER_UNAVAILABLE : null,
                            brokerGone ? "not sent: " + e.getMessage() : null);
                    return;
                }
                if (!p.isOpen() && i + 1 < rows.size()) {
                    // retired under this row (see ConfirmPublisher#publish): the rest go back untouched
                    releaseFrom(rows, i + 1, null, null);
                    return;
                }
            }
        } catch (InterruptedException e) {
            // stopping: what was not handed over goes back now, not at stale-lease recovery
            releaseFrom(rows, handedOver ? i + 1 : i, null, "relay stopping before this row was sent");
            throw e;
        } catch (RuntimeException | Error e) {
            // a row this loop cannot handle (a fault of the relay's own, not of the row's data: see
            // AmqpMessageMapper) must not strand the rows after it under a lease until stale-lease
            // recovery: give them back; the row itself is retried with backoff and counted, and the
            // lane's loop logs it
            releaseFrom(rows, i + 1, null, null);
            if (i < rows.size() && !handedOver) {
                failed(
                        rows.get(i),
                        ErrorCode.CHANNEL_ERROR,
                        "the relay failed on this row: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            throw e;
        }
    }

    private void releaseFrom(List<OutboxRecord> rows, int from, ErrorCode reason, String detail) {
        for (int i = from; i < rows.size(); i++) {
            recorder.add(new OutcomeRecorder.Released(rows.get(i), reason, detail));
        }
    }

    /**
     * Publishes each suspect alone on a fresh channel to learn which one the broker objected to.
     *
     * @return false when the broker is unavailable and the suspects must wait
     */
    private boolean isolateSuspects() {
        Connection connection = session.connection();
        if (connection == null) {
            return false;
        }
        int n = 0;
        Suspect s;
        while ((s = suspects.poll()) != null) {
            n++;
            AmqpMessageMapper.Mapped mapped = config.contracts().map(s.row());
            if (mapped instanceof AmqpMessageMapper.Invalid invalid) {
                failed(s.row(), invalid.code(), invalid.reason());
                continue;
            }
            AmqpMessageMapper.Ready ready = (AmqpMessageMapper.Ready) mapped;
            long sent = System.nanoTime();
            ConfirmPublisher.SoloOutcome outcome = ConfirmPublisher.publishAlone(
                    connection,
                    ready.message(),
                    config.confirmTimeout(),
                    session.config().maxMessageBytes(),
                    spans);
            if (outcome.notSent()) {
                // the connection went before it could leave: it waits, with the rest, for the broker
                suspects.add(s);
                LOG.info("published {} suspect message(s) one by one; the rest wait for the broker", n - 1);
                return false;
            }
            stats.attempted();
            if (outcome.confirmed()) {
                confirmed(s.row(), System.nanoTime() - sent);
            } else {
                failed(s.row(), outcome.failure(), outcome.detail());
            }
        }
        LOG.info("published {} suspect message(s) one by one after a channel error", n);
        return true;
    }

    @Override
    public void confirmed(OutboxRecord row, long confirmNanos) {
        // the outcome first: nothing after it (a metric) may keep it from being recorded
        recorder.add(new OutcomeRecorder.Published(row, confirmNanos));
        stats.confirmed(row.id(), confirmNanos, java.time.Duration.between(row.createdAt(), java.time.Instant.now()));
    }

    @Override
    public void failed(OutboxRecord row, ErrorCode code, String detail) {
        recorder.add(new OutcomeRecorder.Failed(row, decide(row, code, detail)));
        stats.failed(code);
    }

    @Override
    public void unknown(OutboxRecord row, String detail) {
        recorder.add(new OutcomeRecorder.Released(row, ErrorCode.CHANNEL_ERROR, detail));
    }

    @Override
    public void suspect(OutboxRecord row, ErrorCode code, String detail) {
        suspects.add(new Suspect(row, code, detail));
        wakeup.signal();
    }

    /** Park permanent failures at once; retry the others on the backoff schedule until it is spent. */
    Failure decide(OutboxRecord row, ErrorCode code, String detail) {
        // the claim counted this attempt already
        BackoffPolicy.Verdict v = backoff.decide(code, detail, row.attemptCount());
        return v.park()
                ? Failure.park(row.lease(), code, v.detail())
                : Failure.retry(row.lease(), code, v.detail(), v.retryAfter());
    }

    /** Fails overdue messages; returns how many. Called by the relay's timer. */
    int expireOverdue() {
        ConfirmPublisher<OutboxRecord> p = publisher;
        return p == null ? 0 : p.expire(config.confirmTimeout());
    }

    int inFlight() {
        ConfirmPublisher<OutboxRecord> p = publisher;
        return p == null ? 0 : p.inFlightCount();
    }

    void requestStop() {
        stopping = true;
    }

    boolean awaitExit(Duration timeout) throws InterruptedException {
        Thread t = thread;
        if (t == null) {
            return true;
        }
        t.join(Math.max(1, timeout.toMillis()));
        return !t.isAlive();
    }

    boolean awaitSettled(Duration timeout) throws InterruptedException {
        ConfirmPublisher<OutboxRecord> p = publisher;
        return p == null || p.awaitSettled(timeout);
    }

    /** Hands back every row whose outcome is still unknown, and closes the channel. */
    List<OutboxRecord> abandon() {
        List<OutboxRecord> rows = new ArrayList<>();
        ConfirmPublisher<OutboxRecord> p = publisher;
        if (p != null) {
            p.abandon().forEach(f -> rows.add(f.tag()));
            p.close();
        }
        Suspect s;
        while ((s = suspects.poll()) != null) {
            rows.add(s.row());
        }
        return rows;
    }

    private void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
    }
}
