package dev.outbox.relay;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Whether this relay may lease rows now. Open unless something closed it: {@link RelayLiveness}
 * closes it while the relay does not hold its liveness lock, because other relays then treat
 * this relay's leases as a dead relay's and give them away.
 */
final class ClaimGate {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition opened = lock.newCondition();
    private String closedBecause;

    boolean isOpen() {
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
            return closedBecause;
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
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code timeout} for the gate to open; true when it is open. */
    boolean awaitOpen(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (closedBecause != null && nanos > 0) {
                nanos = opened.awaitNanos(nanos);
            }
            return closedBecause == null;
        } finally {
            lock.unlock();
        }
    }
}
