package dev.outbox.bench;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.messaging.publish.PublishListener;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counts what a {@link dev.outbox.messaging.publish.ConfirmPublisher} reports for the baselines
 * (A and N), which publish through the project's own publisher: only the relay and the messaging
 * module talk to the channel. Anything but a confirm fails the run.
 */
final class Outcomes implements PublishListener<String> {
    private final AtomicLong confirmed = new AtomicLong();
    private final AtomicReference<String> firstFailure = new AtomicReference<>();

    @Override
    public void confirmed(String messageId, long confirmNanos) {
        confirmed.incrementAndGet();
    }

    @Override
    public void failed(String messageId, ErrorCode code, String detail) {
        firstFailure.compareAndSet(null, messageId + ": " + code + " " + detail);
    }

    @Override
    public void suspect(String messageId, ErrorCode code, String detail) {
        failed(messageId, code, detail);
    }

    @Override
    public void unknown(String messageId, String detail) {
        failed(messageId, null, detail);
    }

    long confirmed() {
        return confirmed.get();
    }

    /** Throws if any message was not confirmed. */
    void requireAllConfirmed(long expected) {
        if (firstFailure.get() != null || confirmed.get() != expected) {
            throw new IllegalStateException(
                    confirmed.get() + " of " + expected + " confirmed; first failure: " + firstFailure.get());
        }
    }
}
