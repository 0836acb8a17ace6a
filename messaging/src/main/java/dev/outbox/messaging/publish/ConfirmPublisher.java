package dev.outbox.messaging.publish;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.messaging.FailureDescriptions;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One confirm-mode channel with a window of asynchronously confirmed, {@code mandatory}
 * publishes. It keeps a publish-sequence-number to message map, settles acks and nacks
 * (including {@code multiple=true}), remembers {@code basic.return}s so that a returned message
 * is never reported as confirmed even though RabbitMQ acks it, fails messages whose confirm is
 * overdue, and accounts for everything in flight when the channel dies. Every message sent is
 * reported to the {@link PublishListener} exactly once: whoever removes it from the map reports
 * it.
 *
 * <p>One thread publishes ({@link #publish}); confirms, returns and shutdowns arrive on the
 * connection's thread. Not for sharing between publishing threads (CONVENTIONS 7).
 */
public final class ConfirmPublisher<T> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConfirmPublisher.class);

    static final Duration RETURN_GRACE = Duration.ofMillis(250);
    private static final java.util.concurrent.ScheduledExecutorService GRACE_TIMER =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "confirm-publisher-grace");
                t.setDaemon(true);
                return t;
            });

    /** A message sent and not yet settled. */
    public record InFlight<T>(long sequence, T tag, String messageId, long sentNanos) {}

    private record Returned(int replyCode, String replyText) {}

    private final Channel channel;
    private final int windowSize;
    private final Semaphore window;
    private final PublishListener<T> listener;
    private final ConcurrentNavigableMap<Long, InFlight<T>> inFlight = new ConcurrentSkipListMap<>();
    private final Map<String, Returned> returned = new ConcurrentHashMap<>();
    /**
     * Nacked messages whose return may still be on its way: Qpid Broker-J sends {@code basic.nack}
     * and then {@code basic.return} for an unroutable mandatory message (RabbitMQ sends the return
     * before its ack). A nacked message is decided when the next confirm frame arrives on the
     * channel, or after {@link #RETURN_GRACE}: a return in between makes it {@code UNROUTABLE}.
     */
    private final Map<String, InFlight<T>> nackedAwaitingReturn = new java.util.LinkedHashMap<>();

    /** Messages nacked since the last ack on this channel: see {@link #nackStreak()}. */
    private final java.util.concurrent.atomic.AtomicInteger nackStreak =
            new java.util.concurrent.atomic.AtomicInteger();

    private volatile boolean closed;
    private volatile boolean closedByUs;

    private ConfirmPublisher(Channel channel, int windowSize, PublishListener<T> listener) {
        this.channel = channel;
        this.windowSize = windowSize;
        this.window = new Semaphore(windowSize);
        this.listener = listener;
    }

    /** Opens a channel in confirm mode on {@code connection}. */
    public static <T> ConfirmPublisher<T> open(Connection connection, int windowSize, PublishListener<T> listener)
            throws IOException {
        if (windowSize < 1) {
            throw new IllegalArgumentException("window must be at least 1");
        }
        Channel channel = connection.createChannel();
        if (channel == null) {
            throw new IOException("the broker refused another channel (channel_max reached)");
        }
        ConfirmPublisher<T> p = new ConfirmPublisher<>(channel, windowSize, listener);
        channel.addReturnListener(p::onReturn);
        channel.addConfirmListener(
                (seq, multiple) -> p.settle(seq, multiple, true), (seq, multiple) -> p.settle(seq, multiple, false));
        channel.addShutdownListener(p::onShutdown);
        channel.confirmSelect();
        return p;
    }

    public boolean isOpen() {
        return !closed && channel.isOpen();
    }

    /**
     * How many messages the broker nacked on this channel since it last acked one. A channel that
     * only ever gets nacks may be stuck rather than unlucky: on RabbitMQ 3.10, a channel opened
     * just as a quorum queue's leader node died can keep being nacked after a new leader was
     * elected, while a new channel on the same connection is acked at once (measured in the
     * failover test). The owner decides when to give up on the channel.
     */
    public int nackStreak() {
        return nackStreak.get();
    }

    public int windowSize() {
        return windowSize;
    }

    /** Free slots in the window right now. */
    public int availableSlots() {
        return window.availablePermits();
    }

    public int inFlightCount() {
        return inFlight.size();
    }

    /** Takes one window slot, waiting up to {@code maxWait}. */
    public boolean acquireSlot(Duration maxWait) throws InterruptedException {
        return window.tryAcquire(maxWait.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Gives back a slot taken with {@link #acquireSlot} but not used for a publish. */
    public void releaseSlot() {
        window.release();
    }

    /**
     * Sends one message {@code mandatory} on the channel; the caller holds a window slot, which
     * is returned when the message settles.
     *
     * @throws IOException when the message could not be handed to the channel: it was not
     *     sent, its slot is returned, and the caller still owns it
     */
    public void publish(OutboundMessage message, T tag) throws IOException {
        long seq = channel.getNextPublishSeqNo();
        inFlight.put(seq, new InFlight<>(seq, tag, message.messageId(), System.nanoTime()));
        try {
            channel.basicPublish(message.exchange(), message.routingKey(), true, message.properties(), message.body());
        } catch (IOException | AlreadyClosedException e) {
            if (inFlight.remove(seq) == null) {
                // the channel's shutdown sweep got here first and has reported this message: it is
                // settled, so the caller must not treat it as unsent (that would be two outcomes)
                return;
            }
            window.release();
            throw e instanceof IOException io ? io : new IOException(e);
        }
        if (closed) {
            // the channel died while we were writing: its shutdown sweep may have run before we
            // registered, so settle the message here unless the sweep got it
            InFlight<T> orphan = inFlight.remove(seq);
            if (orphan != null) {
                try {
                    listener.failed(tag, ErrorCode.CONNECTION_LOST, "channel closed while publishing");
                } finally {
                    window.release();
                }
            }
        }
    }

    private void onReturn(
            int replyCode,
            String replyText,
            String exchange,
            String routingKey,
            AMQP.BasicProperties properties,
            byte[] body) {
        String id = properties.getMessageId();
        if (id == null) {
            return;
        }
        InFlight<T> nacked;
        synchronized (nackedAwaitingReturn) {
            nacked = nackedAwaitingReturn.remove(id);
        }
        if (nacked != null) {
            // Qpid's order: the nack came first, this return says why
            reportOnce(nacked, Outcome.RETURNED, new Returned(replyCode, replyText));
        } else {
            // RabbitMQ's order: the return comes first, the settle of its ack sees it
            returned.put(id, new Returned(replyCode, replyText));
        }
    }

    private enum Outcome {
        ACKED,
        NACKED,
        RETURNED
    }

    private void settle(long seq, boolean multiple, boolean ack) {
        // a new confirm frame: any return for an earlier nack would have come before it
        resolveNacksWithoutReturn();
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
            Returned r = returned.remove(f.messageId());
            if (r != null) {
                reportOnce(f, Outcome.RETURNED, r);
            } else if (ack) {
                reportOnce(f, Outcome.ACKED, null);
            } else {
                synchronized (nackedAwaitingReturn) {
                    nackedAwaitingReturn.put(f.messageId(), f);
                }
                GRACE_TIMER.schedule(() -> resolveNack(f.messageId()), RETURN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    private void resolveNacksWithoutReturn() {
        List<InFlight<T>> nacked;
        synchronized (nackedAwaitingReturn) {
            if (nackedAwaitingReturn.isEmpty()) {
                return;
            }
            nacked = new ArrayList<>(nackedAwaitingReturn.values());
            nackedAwaitingReturn.clear();
        }
        nacked.forEach(f -> reportOnce(f, Outcome.NACKED, null));
    }

    private void resolveNack(String messageId) {
        InFlight<T> f;
        synchronized (nackedAwaitingReturn) {
            f = nackedAwaitingReturn.remove(messageId);
        }
        if (f != null) {
            reportOnce(f, Outcome.NACKED, null);
        }
    }

    /** Reports first, then frees the slot: a free window means every outcome was handed on. */
    private void reportOnce(InFlight<T> f, Outcome outcome, Returned r) {
        try {
            switch (outcome) {
                case RETURNED ->
                    listener.failed(
                            f.tag(),
                            FailureClassifier.classifyReturn(r.replyCode()),
                            "basic.return " + r.replyCode() + " " + r.replyText());
                case ACKED -> listener.confirmed(f.tag(), System.nanoTime() - f.sentNanos());
                default -> listener.failed(f.tag(), ErrorCode.NACKED, "basic.nack from the broker");
            }
        } finally {
            window.release();
        }
    }

    private void onShutdown(ShutdownSignalException cause) {
        closed = true;
        if (closedByUs) {
            return; // the owner takes what is in flight with abandon()
        }
        resolveNacksWithoutReturn();
        ErrorCode code = FailureClassifier.classify(cause);
        String detail = FailureDescriptions.describe(cause);
        boolean suspects = FailureClassifier.blamesADestination(code);
        int n = 0;
        Map.Entry<Long, InFlight<T>> e;
        while ((e = inFlight.pollFirstEntry()) != null) {
            InFlight<T> f = e.getValue();
            returned.remove(f.messageId());
            n++;
            try {
                if (suspects) {
                    listener.suspect(f.tag(), code, detail);
                } else {
                    listener.failed(f.tag(), code, detail);
                }
            } finally {
                window.release();
            }
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
    public int expire(Duration timeout) {
        long limit = System.nanoTime() - timeout.toNanos();
        int n = 0;
        for (InFlight<T> f : inFlight.values()) {
            if (f.sentNanos() - limit > 0) {
                break; // sequence order is send order: everything after this is younger
            }
            if (inFlight.remove(f.sequence()) != null) {
                returned.remove(f.messageId());
                try {
                    listener.failed(
                            f.tag(), ErrorCode.CONFIRM_TIMEOUT, "no confirm within " + timeout.toMillis() + " ms");
                } finally {
                    window.release();
                }
                n++;
            }
        }
        return n;
    }

    /** Waits until every message in flight has settled; false if some remain at the deadline. */
    public boolean awaitSettled(Duration timeout) throws InterruptedException {
        if (window.tryAcquire(windowSize, timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            window.release(windowSize);
            return true;
        }
        return inFlight.isEmpty();
    }

    /**
     * Stops reporting and hands back every unsettled message, for a caller that is shutting down
     * and will release them itself. Their outcome is unknown: they may have reached the broker.
     */
    public List<InFlight<T>> abandon() {
        closedByUs = true;
        List<InFlight<T>> out = new ArrayList<>();
        synchronized (nackedAwaitingReturn) {
            out.addAll(nackedAwaitingReturn.values());
            nackedAwaitingReturn.values().forEach(f -> window.release());
            nackedAwaitingReturn.clear();
        }
        Map.Entry<Long, InFlight<T>> e;
        while ((e = inFlight.pollFirstEntry()) != null) {
            out.add(e.getValue());
            window.release();
        }
        returned.clear();
        return out;
    }

    /**
     * Closes the channel. Anything still in flight is reported by the shutdown sweep, as for any
     * other channel closure: only {@link #abandon()} takes messages back without a report. (A
     * channel the broker already closed may not have run its sweep yet when its owner notices
     * and closes it; suppressing the sweep here would leave those rows leased until lease expiry.)
     */
    @Override
    public void close() {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (IOException | TimeoutException | ShutdownSignalException e) {
            LOG.debug("closing publisher channel", e);
        }
    }

    /** The outcome of {@link #publishAlone}. */
    public record SoloOutcome(ErrorCode failure, String detail) {
        public static final SoloOutcome CONFIRMED = new SoloOutcome(null, "confirmed");

        public boolean confirmed() {
            return failure == null;
        }
    }

    /**
     * Publishes one message on a channel of its own and waits for its fate. Used to find which of
     * several suspects made the broker close a channel: the answer for this message alone is
     * unambiguous.
     */
    public static SoloOutcome publishAlone(Connection connection, OutboundMessage message, Duration timeout) {
        Channel ch = null;
        try {
            ch = connection.createChannel();
            if (ch == null) {
                return new SoloOutcome(ErrorCode.CHANNEL_ERROR, "no channel available");
            }
            AtomicReference<Returned> ret = new AtomicReference<>();
            java.util.concurrent.CountDownLatch returnSeen = new java.util.concurrent.CountDownLatch(1);
            ch.addReturnListener(r -> {
                ret.set(new Returned(r.getReplyCode(), r.getReplyText()));
                returnSeen.countDown();
            });
            ch.confirmSelect();
            ch.basicPublish(message.exchange(), message.routingKey(), true, message.properties(), message.body());
            boolean acked = ch.waitForConfirms(timeout.toMillis());
            if (!acked) {
                // Qpid sends the return after the nack: give it its moment
                returnSeen.await(RETURN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            }
            Returned r = ret.get();
            if (r != null) {
                return new SoloOutcome(
                        FailureClassifier.classifyReturn(r.replyCode()),
                        "basic.return " + r.replyCode() + " " + r.replyText());
            }
            return acked ? SoloOutcome.CONFIRMED : new SoloOutcome(ErrorCode.NACKED, "basic.nack from the broker");
        } catch (TimeoutException e) {
            return new SoloOutcome(ErrorCode.CONFIRM_TIMEOUT, "no confirm within " + timeout.toMillis() + " ms");
        } catch (ShutdownSignalException e) {
            return new SoloOutcome(FailureClassifier.classify(e), FailureDescriptions.describe(e));
        } catch (IOException e) {
            if (e.getCause() instanceof ShutdownSignalException sse) {
                return new SoloOutcome(FailureClassifier.classify(sse), FailureDescriptions.describe(sse));
            }
            return new SoloOutcome(ErrorCode.CONNECTION_LOST, e.getClass().getSimpleName() + " " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SoloOutcome(ErrorCode.CONNECTION_LOST, "interrupted while waiting for a confirm");
        } finally {
            if (ch != null && ch.isOpen()) {
                try {
                    ch.close();
                } catch (IOException | TimeoutException | ShutdownSignalException e) {
                    LOG.debug("closing solo channel", e);
                }
            }
        }
    }
}
