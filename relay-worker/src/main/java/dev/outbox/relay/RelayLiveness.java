package dev.outbox.relay;

import dev.outbox.ProcessIds;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.relay.LivenessLock;
import dev.outbox.persistence.relay.RelayLock;
import dev.outbox.persistence.relay.RelayRegistry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ties this relay's leases to its life, so that the rows of a relay that dies come back in
 * seconds instead of after the lease, while a relay that is only slow or paused keeps them.
 *
 * <p>A thread holds the relay's {@link RelayLock} (a session-level advisory lock on a connection
 * of its own) and checks that session every {@link LivenessConfig#checkInterval()}. Claims are
 * allowed ({@link ClaimGate}) only while the lock is held: without it, other relays give this
 * relay's rows away, and its marks on them are refused by the fence. When the session is lost
 * (terminated backend, database restart, network), the gate closes, the loss is logged and
 * counted, and the thread reconnects and takes the lock again. It never takes a lock another
 * process holds: a second process with the same {@code OUTBOX_RELAY_ID} waits, loudly.
 *
 * <p>The first time it holds the lock, before any claim, it gives back the rows still leased to
 * its relay id: a previous incarnation left them when it died.
 *
 * <p>A sweep, on another thread at the same interval, gives back the rows of registered relays
 * whose lock nobody holds and whose heartbeat is older than {@link LivenessConfig#grace()}
 * due now and without counting the attempt: for ordinary claims ({@code STALE_LOCK}) the first
 * time, as suspects published alone ({@code RELAY_DIED}, {@link SuspectIsolation}) when they were
 * given back before. A relay sweeps only once it has held its own lock for the grace:
 * after a database failover every lock is free until its relay reconnects. Rows of relays that are
 * not registered are left to the lease ({@code STALE_LOCK}).
 */
final class RelayLiveness implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayLiveness.class);
    /** A peer's sweep holds a dead relay's key for one short transaction: this is plenty to outwait it. */
    private static final long SWEEP_RETRY_MILLIS = 100;

    /** How long {@link #close} waits for the holder to release the lock, then for a sweep in progress. */
    static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(10);

    private final LivenessConfig config;
    private final Supplier<LivenessLock> connector;
    private final String relayId;
    private final RelayRegistry registry;
    private final ClaimGate gate;
    private final Runnable wakeUp;
    private final ExponentialBackoff backoff;
    private final Thread holder;
    private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "relay-liveness-sweep");
        t.setDaemon(true);
        return t;
    });
    private final Counter recovered;
    private final Counter reregistered;
    private final Counter lost;
    private final Counter refused;
    private final Counter errors;
    private final AtomicLong acquisitions = new AtomicLong();
    private final DeadRelaySweep deadRelays;
    private volatile boolean running = true;
    private volatile boolean held;
    private volatile String state = "DOWN: taking the liveness lock; not claiming yet";
    private volatile int backendPid = -1;
    /** When the lock was last taken (System.nanoTime()); a relay judges others only a grace later. */
    private volatile long heldSince;

    /**
     * {@code connector} opens a new session of the relay's lock each time it is called: in the
     * relay, {@link RelayLock#connect} on a connection of its own.
     */
    RelayLiveness(
            LivenessConfig config,
            Supplier<LivenessLock> connector,
            String relayId,
            RelayRegistry registry,
            ClaimGate gate,
            Runnable wakeUp,
            ExponentialBackoff backoff,
            int maxAttempts,
            MeterRegistry meters) {
        this.config = config;
        this.connector = connector;
        this.relayId = relayId;
        this.registry = registry;
        this.gate = gate;
        this.wakeUp = wakeUp;
        this.backoff = backoff;
        this.holder = new Thread(this::hold, "relay-liveness");
        this.holder.setDaemon(true);
        reregistered = Counter.builder("outbox.relay.liveness.reregistered")
                .description("times this relay found its registration gone and wrote it back")
                .register(meters);
        recovered = Counter.builder("outbox.rows.recovered.from.dead.relays")
                .description(
                        "leased rows this relay gave back because the relay holding them died (STALE_LOCK, RELAY_DIED),"
                                + " including its own previous incarnation's at start")
                .register(meters);
        lost = Counter.builder("outbox.relay.liveness.lost")
                .description("times this relay lost its liveness lock and stopped claiming until it had it again")
                .register(meters);
        refused = Counter.builder("outbox.relay.liveness.refused")
                .description("attempts to take the liveness lock refused because another process holds this relay id")
                .register(meters);
        errors = Counter.builder("outbox.relay.liveness.errors")
                .description("failed liveness checks and dead-relay sweeps (each is retried)")
                .register(meters);
        this.deadRelays = new DeadRelaySweep(
                config,
                relayId,
                registry,
                maxAttempts,
                wakeUp,
                recovered,
                errors,
                () -> held && System.nanoTime() - heldSince >= config.grace().toNanos());
        Gauge.builder("outbox.relay.liveness.held", this, l -> l.held ? 1 : 0)
                .strongReference(true)
                .description("1 while this relay holds its liveness lock and may claim")
                .register(meters);
    }

    /**
     * Closes the claim gate until the lock is held, fences every claim on the lock in the
     * database too, then starts holding it and sweeping.
     */
    void start() {
        gate.close("waiting for the liveness lock");
        gate.fenceOnLivenessLock();
        holder.start();
        long every = config.checkInterval().toMillis();
        sweeper.scheduleWithFixedDelay(deadRelays::sweep, every, every, TimeUnit.MILLISECONDS);
    }

    boolean holdsLock() {
        return held;
    }

    /** {@code UP}, or {@code DOWN: why} while this relay does not hold its lock (and claims nothing). */
    String health() {
        return state;
    }

    /** Times the lock was taken: 1 after start, more after each loss. */
    long acquisitions() {
        return acquisitions.get();
    }

    long lost() {
        return (long) lost.count();
    }

    long refused() {
        return (long) refused.count();
    }

    long recovered() {
        return (long) recovered.count();
    }

    /** Completed sweeps, whether or not they found a dead relay. */
    long sweeps() {
        return deadRelays.sweeps();
    }

    /** The database backend of the lock's session, -1 while there is none. */
    int backendPid() {
        return backendPid;
    }

    private void hold() {
        try {
            holdWhileRunning();
        } finally {
            if (running) {
                // the loop catches everything, so this is the unforeseen: a relay that may not hold its
                // lock must not claim, and must not look healthy
                held = false;
                backendPid = -1;
                state = "DOWN: the liveness holder stopped; not claiming";
                gate.close("the liveness holder stopped");
                LOG.error(
                        "relay {}: the liveness holder stopped while the relay runs; it claims nothing from now on",
                        relayId);
            } else {
                held = false;
            }
        }
    }

    private void holdWhileRunning() {
        boolean tookBack = false;
        int failures = 0;
        while (running) {
            LivenessLock lock = null;
            try {
                lock = connector.get();
                if (!acquire(lock)) {
                    return;
                }
                lock.recordIncarnation(
                        ProcessIds.hostName(), ProcessHandle.current().pid(), processStart());
                if (!tookBack) {
                    deadRelays.takeBackOwnRows();
                    tookBack = true;
                }
                backendPid = lock.backendPid();
                heldSince = System.nanoTime();
                held = true;
                state = "UP";
                acquisitions.incrementAndGet();
                gate.open();
                if (failures > 0 || acquisitions.get() > 1) {
                    LOG.info(
                            "relay {} holds its liveness lock again (database backend {}); claiming resumes",
                            relayId,
                            backendPid);
                } else {
                    LOG.info(
                            "relay {} holds its liveness lock (database backend {}, key {})",
                            relayId,
                            backendPid,
                            lock.lockKey());
                }
                failures = 0;
                while (running) {
                    Thread.sleep(config.checkInterval().toMillis());
                    if (!lock.heartbeat()) {
                        reregistered.increment();
                        LOG.warn(
                                "relay {}'s registration in outbox_relays was gone (deleted, or the table truncated)"
                                        + " while it held its lock; written back under key {}, claims go on",
                                relayId,
                                lock.lockKey());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Throwable e) {
                // DataAccessException (session gone, database down), or anything else, an Error included:
                // the lock's session is closed below, so the gate must close with it, and the thread lives on
                failures++;
                errors.increment();
                String why = e instanceof DataAccessException ? e.getMessage() : e.toString();
                if (held) {
                    held = false;
                    lost.increment();
                    gate.close("lost the liveness lock: " + why);
                    LOG.error(
                            "relay {} lost its liveness lock ({}): it claims nothing until it holds the lock again;"
                                    + " other relays may now give away the rows it has in flight, and the fence will refuse its"
                                    + " marks on those",
                            relayId,
                            why,
                            e instanceof DataAccessException ? null : e);
                } else if (failures == 1 || Integer.bitCount(failures) == 1) {
                    LOG.warn(
                            "relay {} cannot take its liveness lock ({}); attempt {} failed, not claiming",
                            relayId,
                            why,
                            failures,
                            e instanceof DataAccessException ? null : e);
                }
                state = "DOWN: no liveness lock (" + why + "); not claiming";
                backendPid = -1;
                if (!pause(backoff.delay(failures).toMillis())) {
                    return;
                }
            } finally {
                if (lock != null) {
                    release(lock);
                }
            }
        }
    }

    /**
     * Waits until {@code lock} is held; false when the relay stopped meanwhile. A holder that is
     * another relay's liveness session is a second live process with this relay id. Any other
     * holder is most likely a peer's sweep, which holds the key for the one short transaction in
     * which it gives back what this id's previous incarnation left: worth a quick second try, not
     * an alarm; only when it still holds the key then is the id reported in use.
     */
    private boolean acquire(LivenessLock lock) throws InterruptedException {
        int refusals = 0;
        long inUse = 0;
        while (running && !lock.tryAcquire()) {
            refusals++;
            LivenessLock.LockHolder holder = lock.holder();
            if (refusals == 1 && !holder.livenessSession()) {
                long retry = Math.min(SWEEP_RETRY_MILLIS, config.checkInterval().toMillis());
                state = "DOWN: waiting for its liveness lock, held by " + holder.description() + "; not claiming";
                LOG.info(
                        "relay id {}: its liveness lock is held by {}, most likely another relay's sweep giving back"
                                + " the rows a previous incarnation of this id left; trying again in {} ms",
                        relayId,
                        holder.description(),
                        retry);
                Thread.sleep(retry);
                continue;
            }
            refused.increment();
            state = "DOWN: relay id " + relayId + " is in use by another process; not claiming";
            if (inUse % 30 == 0) {
                LOG.error(
                        "relay id {} is in use: its liveness lock is held by {}. This process claims nothing"
                                + " until that one is gone; two live processes must never share OUTBOX_RELAY_ID",
                        relayId,
                        holder.description());
            }
            inUse++;
            Thread.sleep(config.checkInterval().toMillis());
        }
        return running;
    }

    private void release(LivenessLock lock) {
        try {
            lock.close();
        } catch (DataAccessException e) {
            // the session is already broken; PostgreSQL frees the lock when it notices
            LOG.debug("closing the liveness connection: {}", e.getMessage());
        }
    }

    private boolean pause(long millis) {
        try {
            Thread.sleep(millis);
            return running;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Instant processStart() {
        return ProcessHandle.current().info().startInstant().orElseGet(Instant::now);
    }

    /**
     * Stops sweeping and gives up the lock (closing its session). Call after the relay stopped:
     * from then on other relays may recover whatever it left leased.
     */
    @Override
    public void close() {
        running = false;
        sweeper.shutdownNow();
        holder.interrupt();
        try {
            holder.join(CLOSE_WAIT.toMillis());
            sweeper.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        held = false;
        state = "DOWN: stopped";
    }
}
