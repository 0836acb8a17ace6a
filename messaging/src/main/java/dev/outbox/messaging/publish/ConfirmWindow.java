package dev.outbox.messaging.publish;

import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.messaging.FailureDescriptions;
import dev.outbox.messaging.publish.ConfirmPublisher.InFlight;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The messages a {@link ConfirmPublisher} sent on its channel and that are not settled yet, and
 * the window of slots they hold. It owns the publish-sequence-number to message map, settles acks
 * and nacks (including {@code multiple=true}) with the {@link ReturnMatcher}'s word on returns,
 * fails messages whose confirm is overdue, fails everything in flight when the channel dies, and
 * hands each message's outcome to the {@link PublishListener} exactly once: whoever removes a
 * message from the map reports it, and the report frees its slot.
 *
 * <p>The publishing thread takes slots, files messages and expires them; confirms, returns and
 * shutdowns arrive on the connection's thread, and a nack's grace ends on the grace timer's.
 */
final class ConfirmWindow<T> {
    // the publisher's log category: these lines are the publisher's, as they always were
    private static final Logger LOG = LoggerFactory.getLogger(ConfirmPublisher.class);

    private enum Outcome {
        ACKED,
        NACKED,
        RETURNED
    }

    private final int windowSize;
    private final Semaphore window;
    private final PublishListener<T> listener;
    private final ConcurrentNavigableMap<Long, InFlight<T>> inFlight = new ConcurrentSkipListMap<>();
    private final ReturnMatcher<T> returns =
            new ReturnMatcher<>((f, r) -> reportOnce(f, Outcome.RETURNED, r), f -> reportOnce(f, Outcome.NACKED, null));

    /** Messages nacked since the last ack on this channel: see {@link ConfirmPublisher#nackStreak()}. */
    private final AtomicInteger nackStreak = new AtomicInteger();

    ConfirmWindow(int windowSize, PublishListener<T> listener) {
        this.windowSize = windowSize;
        this.window = new Semaphore(windowSize);
        this.listener = listener;
    }

    int windowSize() {
        return windowSize;
    }

    int availableSlots() {
        return window.availablePermits();
    }

    int inFlightCount() {
        return inFlight.size();
    }

    int nackStreak() {
        return nackStreak.get();
    }

    boolean acquireSlot(Duration maxWait) throws InterruptedException {
        return window.tryAcquire(maxWait.toNanos(), TimeUnit.NANOSECONDS);
    }

    void releaseSlot() {
        window.release();
    }

    /** Files a message under the sequence number it is about to be sent with. */
    void sending(long seq, T tag, String messageId) {
        inFlight.put(seq, new InFlight<>(seq, tag, messageId, System.nanoTime()));
    }

    /**
     * Takes a message out of the map unreported, for the publishing thread to settle; null when
     * another thread took it first, and reported it.
     */
    InFlight<T> take(long seq) {
        return inFlight.remove(seq);
    }

    /**
     * Hands one outcome to the listener and frees its slot, whatever the listener does: a listener
     * that throws loses only this message's report (its row goes back by lease recovery), never
     * the reports of the messages settled with it, and never a window slot.
     */
    void report(T tag, String messageId, Consumer<PublishListener<T>> call) {
        try {
            call.accept(listener);
        } catch (RuntimeException | Error e) {
            LOG.error("the publish listener failed on the outcome of message {} ({})", messageId, tag, e);
        } finally {
            window.release();
        }
    }

    /** A {@code basic.return} arrived (connection thread). */
    void onReturn(String messageId, int replyCode, String replyText) {
        returns.onReturn(messageId, replyCode, replyText);
    }

    /** A {@code basic.ack} or {@code basic.nack} arrived (connection thread). */
    void settle(long seq, boolean multiple, boolean ack) {
        // a new confirm frame: any return for an earlier nack would have come before it
        returns.resolveNacksWithoutReturn();
        List<InFlight<T>> settled = new ArrayList<>();
        if (multiple) {
            Map.Entry<Long, InFlight<T>> e;
            while ((e = inFlight.firstEntry()) != null && e.getKey() <= seq) {
                InFlight<T> f = inFlight.remove(e.getKey());
                if (f != null) {
                    settled.add(f);
                }
            }
        } else {
            InFlight<T> f = inFlight.remove(seq);
            if (f != null) {
                settled.add(f);
            }
        }
        if (ack) {
            nackStreak.set(0);
        } else {
            nackStreak.addAndGet(settled.size());
        }
        for (InFlight<T> f : settled) {
            BasicReturn r = returns.takeReturn(f.messageId());
            if (r != null) {
                reportOnce(f, Outcome.RETURNED, r);
            } else if (ack) {
                reportOnce(f, Outcome.ACKED, null);
            } else {
                returns.awaitReturn(f);
            }
        }
    }

    /**
     * Reports first, then frees the slot: a free window means every outcome was handed on. A
     * listener that throws loses only its own message's report (its row goes back by lease
     * recovery), never the reports of the messages settled by the same confirm frame.
     */
    private void reportOnce(InFlight<T> f, Outcome outcome, BasicReturn r) {
        report(f.tag(), f.messageId(), l -> {
            switch (outcome) {
                case RETURNED ->
                    l.failed(
                            f.tag(),
                            FailureClassifier.classifyReturn(r.replyCode()),
                            "basic.return " + r.replyCode() + " " + r.replyText());
                case ACKED -> l.confirmed(f.tag(), System.nanoTime() - f.sentNanos());
                default -> l.failed(f.tag(), ErrorCode.NACKED, "basic.nack from the broker");
            }
        });
    }

    /**
     * The channel closed under the publisher: every message in flight fails with the close's
     * cause, as a suspect when the cause is a destination error that blames one message unnamed.
     */
    void failAllOnShutdown(ShutdownSignalException cause) {
        returns.resolveNacksWithoutReturn();
        ErrorCode code = FailureClassifier.classify(cause);
        String detail = FailureDescriptions.describe(cause);
        boolean suspects = FailureClassifier.blamesOneMessage(code);
        int n = 0;
        Map.Entry<Long, InFlight<T>> e;
        while ((e = inFlight.pollFirstEntry()) != null) {
            InFlight<T> f = e.getValue();
            returns.forget(f.messageId());
            n++;
            report(f.tag(), f.messageId(), l -> {
                if (suspects) {
                    l.suspect(f.tag(), code, detail);
                } else {
                    l.failed(f.tag(), code, detail);
                }
            });
        }
        if (n > 0) {
            LOG.warn("publisher channel shut down with {} message(s) in flight: {} ({})", n, code, detail);
        }
    }

    /**
     * Fails, as {@code CONFIRM_TIMEOUT}, every message sent more than {@code timeout} ago.
     *
     * @return how many expired
     */
    int expire(Duration timeout) {
        long limit = System.nanoTime() - timeout.toNanos();
        int n = 0;
        for (InFlight<T> f : inFlight.values()) {
            if (f.sentNanos() - limit > 0) {
                break; // sequence order is send order: everything after this is younger
            }
            if (inFlight.remove(f.sequence()) != null) {
                returns.forget(f.messageId());
                report(
                        f.tag(),
                        f.messageId(),
                        l -> l.failed(
                                f.tag(), ErrorCode.CONFIRM_TIMEOUT, "no confirm within " + timeout.toMillis() + " ms"));
                n++;
            }
        }
        return n;
    }

    /** Waits until every message in flight has settled; false if some remain at the deadline. */
    boolean awaitSettled(Duration timeout) throws InterruptedException {
        if (window.tryAcquire(windowSize, timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            window.release(windowSize);
            return true;
        }
        return inFlight.isEmpty();
    }

    /**
     * Takes every unsettled message out, unreported and still holding its slot, for a caller
     * that reports each of them itself: the nacked ones waiting for a return first, then the
     * rest in send order.
     */
    List<InFlight<T>> takeAll() {
        List<InFlight<T>> out = returns.takeNacked();
        Map.Entry<Long, InFlight<T>> e;
        while ((e = inFlight.pollFirstEntry()) != null) {
            out.add(e.getValue());
        }
        returns.forgetAll();
        return out;
    }

    /** Takes every unsettled message out, unreported, and frees their slots: nothing reports them. */
    List<InFlight<T>> abandon() {
        List<InFlight<T>> out = returns.takeNacked();
        out.forEach(f -> window.release());
        Map.Entry<Long, InFlight<T>> e;
        while ((e = inFlight.pollFirstEntry()) != null) {
            out.add(e.getValue());
            window.release();
        }
        returns.forgetAll();
        return out;
    }
}
