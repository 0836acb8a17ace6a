package dev.outbox.relay;

import com.rabbitmq.client.Connection;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.PublishSpans;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes suspects one at a time, with nothing else in flight. A suspect is a row given back
 * because the relay holding it died, for the second time ({@code RELAY_DIED}; the first death
 * gives it back for ordinary claims as {@code STALE_LOCK}): it may be what killed the relays, or
 * it may only have shared a batch with that row. Ordinary claims leave suspects alone. This thread
 * pauses the lanes' claims ({@link ClaimGate#pause}), claims one due suspect (the claim itself
 * refuses while this relay still holds any other row, so in-flight batches settle first),
 * publishes it alone, writes its outcome, and repeats for at most {@link #SLICE}; then the lanes
 * resume for as long again. If the relay dies while it holds a suspect, it held that row alone, and
 * the death counts against that row; after its attempts it is parked ({@code RELAY_DIED}). A healthy
 * row publishes on its solo attempt and is a suspect no more.
 */
final class SuspectIsolation implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(SuspectIsolation.class);
    /** How often it looks for suspects when nobody said some were given back. */
    static final Duration CHECK_EVERY = Duration.ofSeconds(1);
    /** Longest time the lanes are held back for suspects at a stretch; they then get as long again. */
    static final Duration SLICE = Duration.ofSeconds(1);
    /** Between looks at whether this relay's in-flight rows are settled and recorded. */
    private static final long SETTLE_POLL_MILLIS = 10;

    private final PublishSpans spans;
    private final RelayConfig config;
    private final OutboxStore store;
    private final BrokerSession session;
    private final ClaimGate gate;
    private final PublishLane decider;
    private final OutcomeRecorder recorder;
    private final RelayStats stats;
    private final java.util.function.IntSupplier lanesInFlight;
    private final Wakeup nudges = new Wakeup();
    /** The suspect claimed and not yet recorded: given back at stop if the thread cannot finish it. */
    private volatile OutboxRecord inHand;

    private volatile boolean running = true;
    private volatile long slices;
    private Thread thread;

    /** {@code decider} turns a failed attempt into retry or park, as for any published row. */
    SuspectIsolation(
            RelayConfig config,
            OutboxStore store,
            BrokerSession session,
            ClaimGate gate,
            PublishLane decider,
            OutcomeRecorder recorder,
            RelayStats stats,
            java.util.function.IntSupplier lanesInFlight,
            PublishSpans spans) {
        this.spans = spans;
        this.lanesInFlight = lanesInFlight;
        this.config = config;
        this.store = store;
        this.session = session;
        this.gate = gate;
        this.decider = decider;
        this.recorder = recorder;
        this.stats = stats;
    }

    void start() {
        thread = new Thread(this, "relay-suspects");
        thread.setDaemon(true);
        thread.start();
    }

    /** Rows were given back after a relay died: look now rather than at the next check. */
    void nudge() {
        nudges.signal();
    }

    /** Slices run so far (each paused the lanes at least once). */
    long slices() {
        return slices;
    }

    /** How a slice ended. */
    enum Slice {
        /** No suspect is due any more. */
        DONE,
        /** Suspects may be left: the lanes get their turn, then another slice. */
        MORE,
        /**
         * This relay holds rows that nothing in this process is settling (an outcome the recorder
         * gave up on, left to lease recovery): no suspect can be claimed alone until they are
         * recovered, so holding the lanes back would only starve them.
         */
        BLOCKED
    }

    /** The longest wait between slices while this relay is blocked from taking a suspect alone. */
    static final Duration BLOCKED_BACKOFF_MAX = Duration.ofSeconds(15);

    /** How long {@link #stop} waits for an interrupted thread once its own time is up. */
    static final Duration INTERRUPTED_EXIT = Duration.ofSeconds(1);

    @Override
    public void run() {
        int failures = 0;
        int blocked = 0;
        while (running) {
            long seen = nudges.generation();
            try {
                if (gate.livenessOpen() && session.connection() != null && store.hasDueSuspects(types())) {
                    Slice slice = isolateSlice();
                    failures = 0;
                    if (slice == Slice.BLOCKED) {
                        blocked++;
                        long backoff =
                                Math.min(BLOCKED_BACKOFF_MAX.toMillis(), SLICE.toMillis() << Math.min(blocked, 4));
                        pause(Duration.ofMillis(backoff));
                    } else {
                        blocked = 0;
                        if (slice == Slice.MORE) {
                            // the lanes' turn: ordinary rows must not wait behind a long line of suspects
                            pause(SLICE);
                        }
                    }
                    continue;
                }
                blocked = 0;
                failures = 0;
                nudges.await(CHECK_EVERY, seen);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (DataAccessException e) {
                failures++;
                if (Integer.bitCount(failures) == 1) {
                    LOG.warn(
                            "cannot look for suspects ({}); attempt {} failed, trying again", e.getMessage(), failures);
                }
                pause(CHECK_EVERY);
            } catch (Throwable e) { // NOPMD: the loop boundary; an Error here must not end suspect publishing
                stats.unexpected("suspect-isolation");
                LOG.error("unexpected failure while publishing suspects alone; carrying on", e);
                pause(CHECK_EVERY);
            }
        }
    }

    /**
     * Holds the lanes back and publishes due suspects one by one for up to {@link #SLICE}.
     *
     * @return how the slice ended
     */
    private Slice isolateSlice() throws InterruptedException {
        // a lane inside a claim finishes handing its batch to the broker first; that can wait for a
        // free confirm slot, bounded by the confirm timeout
        Duration settle = config.confirmTimeout().plusSeconds(1);
        slices++;
        if (!gate.pause("publishing suspects one at a time", settle)) {
            gate.resume();
            LOG.warn("suspects wait: a publishing lane did not finish its claim within {} ms", settle.toMillis());
            return Slice.MORE;
        }
        int published = 0;
        try {
            long settleBy = System.nanoTime() + settle.toNanos();
            long sliceEnd = Long.MAX_VALUE;
            while (running && System.nanoTime() - Math.min(sliceEnd, settleBy) < 0) {
                Connection connection = session.connection();
                if (!gate.livenessOpen() || connection == null || !connection.isOpen()) {
                    return Slice.MORE;
                }
                Optional<OutboxRecord> suspect = UnansweredClaims.claim(
                        recorder, leased -> store.claimSuspect(config.relayId(), types(), gate.fenced(), leased));
                if (suspect.isEmpty()) {
                    if (!store.hasDueSuspects(types())) {
                        return Slice.DONE;
                    }
                    if (lanesInFlight.getAsInt() == 0 && recorder.backlog() == 0) {
                        // nothing here is settling what this relay still holds
                        return Slice.BLOCKED;
                    }
                    // this relay still holds rows: confirms in flight, or outcomes not yet written
                    Thread.sleep(SETTLE_POLL_MILLIS);
                    continue;
                }
                inHand = suspect.get();
                if (sliceEnd == Long.MAX_VALUE) {
                    sliceEnd = System.nanoTime() + SLICE.toNanos();
                    settleBy = Long.MAX_VALUE;
                }
                boolean written = publishAlone(connection, suspect.get());
                inHand = null; // written, or the recorder has its outcome
                if (!written) {
                    return Slice.MORE;
                }
                published++;
            }
            return Slice.MORE;
        } finally {
            gate.resume();
            if (published > 0) {
                LOG.info("published {} suspect(s) one at a time, with nothing else in flight", published);
            }
        }
    }

    /** @return false when the outcome could not be written now (the recorder has it) */
    private boolean publishAlone(Connection connection, OutboxRecord row) {
        AmqpMessageMapper.Mapped mapped = config.contracts().map(row);
        if (mapped instanceof AmqpMessageMapper.Invalid invalid) {
            stats.failed(invalid.code());
            return record(new OutcomeRecorder.Failed(row, decider.decide(row, invalid.code(), invalid.reason())));
        }
        long sent = System.nanoTime();
        ConfirmPublisher.SoloOutcome outcome = ConfirmPublisher.publishAlone(
                connection,
                ((AmqpMessageMapper.Ready) mapped).message(),
                config.confirmTimeout(),
                session.config().maxMessageBytes(),
                spans);
        if (outcome.notSent()) {
            // the connection went before the message could leave: nothing learnt about this row.
            // It goes back uncounted, still a suspect, and the slice ends until the broker is back;
            // counting it would spend every suspect's attempts during one broker outage
            recorder.add(new OutcomeRecorder.Released(row, null, null));
            LOG.info(
                    "suspect message_id={} not sent ({}); given back until the broker is back",
                    row.id(),
                    outcome.detail());
            return false;
        }
        stats.attempted();
        stats.suspectPublishedAlone();
        if (outcome.confirmed()) {
            long nanos = System.nanoTime() - sent;
            boolean written = record(new OutcomeRecorder.Published(row, nanos));
            stats.confirmed(row.id(), nanos, Duration.between(row.createdAt(), Instant.now()));
            return written;
        }
        stats.failed(outcome.failure());
        return record(new OutcomeRecorder.Failed(row, decider.decide(row, outcome.failure(), outcome.detail())));
    }

    /**
     * Writes the outcome before the next suspect is claimed (that claim needs this row settled).
     * When the database refuses or is away, the recorder takes it over and waits the outage out.
     */
    private boolean record(OutcomeRecorder.Outcome outcome) {
        OutboxRecord row = outcome.row();
        try {
            Set<UUID> changed = outcome instanceof OutcomeRecorder.Failed f
                    ? store.recordFailures(config.relayId(), List.of(f.failure()))
                    : store.markPublished(config.relayId(), List.of(row.lease()));
            if (!changed.contains(row.id())) {
                stats.lostLease();
                RowLog.withRow(
                        row,
                        () -> LOG.warn(
                                "lost lease: could not record the outcome of suspect message_id={}: another relay or"
                                        + " stale-lock recovery took the row first; its outcome stands",
                                row.id()));
            }
            return true;
        } catch (DataAccessException e) {
            recorder.add(outcome);
            LOG.warn("could not write a suspect's outcome ({}); the recorder keeps it", e.getMessage());
            return false;
        }
    }

    private Set<String> types() {
        return config.unorderedTypes();
    }

    private void pause(Duration d) {
        try {
            nudges.await(d, nudges.generation());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /**
     * Stops after the suspect in hand, if any, is published and recorded; a thread that cannot
     * finish within {@code timeout} (a broker or database that stopped answering) is interrupted,
     * and a suspect it still holds goes back to the recorder as not sent, due again, its death
     * evidence kept, instead of waiting for lease recovery.
     */
    void stop(Duration timeout) throws InterruptedException {
        running = false;
        nudges.signal();
        Thread t = thread;
        if (t != null) {
            t.join(Math.max(1, timeout.toMillis()));
            if (t.isAlive()) {
                t.interrupt();
                t.join(INTERRUPTED_EXIT.toMillis());
            }
        }
        OutboxRecord held = inHand;
        if (held != null) {
            inHand = null;
            recorder.add(new OutcomeRecorder.Released(held, null, null));
        }
    }
}
