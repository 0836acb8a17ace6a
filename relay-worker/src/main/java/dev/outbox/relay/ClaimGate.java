package dev.outbox.relay;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Whether this relay's lanes may lease rows now. Two things hold them back, independently:
 *
 * <ul>
 *   <li>{@link RelayLiveness} closes it while the relay does not hold its liveness lock, because
 *       other relays then treat this relay's leases as a dead relay's and give them away;
 *   <li>{@link SuspectIsolation} pauses it while it publishes suspects alone: a relay that dies
 *       holding a suspect must hold nothing else, so that the death is evidence against that row.
 * </ul>
 *
 * <p>A lane claims and publishes between {@link #tryEnter()} and {@link #exit()}, so a pause can
 * wait until no lane is in the middle of a claim ({@link #pause}).
 */
final class ClaimGate {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private String closedBecause;
    private String pausedBecause;
    private int inside;
    private volatile boolean fenced;

    boolean isOpen() {
        lock.lock();
        try {
            return closedBecause == null && pausedBecause == null;
        } finally {
            lock.unlock();
        }
    }

    /** Open as far as liveness goes (a pause for suspects aside): this relay holds its lock. */
    boolean livenessOpen() {
        lock.lock();
        try {
            return closedBecause == null;
        } finally {
            lock.unlock();
        }
    }

    /** Why claims are held back, or null while they are allowed. */
    String closedBecause() {
        lock.lock();
        try {
            return closedBecause != null ? closedBecause : pausedBecause;
        } finally {
            lock.unlock();
        }
    }

    void close(String why) {
        lock.lock();
        try {
            closedBecause = why;
        } finally {
            lock.unlock();
        }
    }

    void open() {
        lock.lock();
        try {
            closedBecause = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * From now on every claim also asks the database whether this relay's liveness session holds
     * its lock (the claim fence). Set once, by {@link RelayLiveness#start()}.
     */
    void fenceOnLivenessLock() {
        fenced = true;
    }

    boolean fenced() {
        return fenced;
    }

    /** Waits up to {@code timeout} for the gate to open; true when it is open. */
    boolean awaitOpen(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while ((closedBecause != null || pausedBecause != null) && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return closedBecause == null && pausedBecause == null;
        } finally {
            lock.unlock();
        }
    }

    /** A lane about to claim: true (and it must {@link #exit()} afterwards) when the gate is open. */
    boolean tryEnter() {
        lock.lock();
        try {
            if (closedBecause != null || pausedBecause != null) {
                return false;
            }
            inside++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** The lane has claimed and handed its rows to the broker (or given them back). */
    void exit() {
        lock.lock();
        try {
            if (inside <= 0) {
                throw new IllegalStateException("exit without a matching tryEnter");
            }
            inside--;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops new claims, then waits up to {@code timeout} for lanes in the middle of one to finish
     * it. True when none is left inside; either way the pause stands until {@link #resume()}.
     */
    boolean pause(String why, Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            pausedBecause = why;
            while (inside > 0 && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            return inside == 0;
        } finally {
            lock.unlock();
        }
    }

    void resume() {
        lock.lock();
        try {
            pausedBecause = null;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
