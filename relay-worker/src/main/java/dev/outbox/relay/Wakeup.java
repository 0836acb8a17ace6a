package dev.outbox.relay;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** Lets idle publishing lanes wait for new work, and lets anyone (a notification, stop) wake them. */
final class Wakeup {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signalled = lock.newCondition();
    private long generation;

    /** Waits up to {@code timeout} or until {@link #signal()}; a signal since the last wait counts. */
    void await(Duration timeout, long seenGeneration) throws InterruptedException {
        lock.lock();
        try {
            if (generation == seenGeneration) {
                signalled.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    void signal() {
        lock.lock();
        try {
            generation++;
            signalled.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
