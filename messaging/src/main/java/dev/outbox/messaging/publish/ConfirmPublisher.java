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
import java.util.Optional;
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
    /** Set once {@code basicPublish} threw something other than an I/O failure: see {@link #retire}. */
    private volatile String retiredBecause;

    private final int frameMax;
    private final long maxBodyBytes;

    private ConfirmPublisher(
            Channel channel, int windowSize, int frameMax, long maxBodyBytes, PublishListener<T> listener) {
        this.channel = channel;
        this.windowSize = windowSize;
        this.window = new Semaphore(windowSize);
        this.frameMax = frameMax;
        this.maxBodyBytes = maxBodyBytes;
        this.listener = listener;
    }

    /**
     * Opens a channel in confirm mode on {@code connection}. Bodies over {@code maxBodyBytes} (the
     * broker's {@code max_message_size}) are refused as {@code UNENCODABLE} without being sent.
     */
    public static <T> ConfirmPublisher<T> open(
            Connection connection, int windowSize, long maxBodyBytes, PublishListener<T> listener) throws IOException {
        if (windowSize < 1) {
            throw new IllegalArgumentException("window must be at least 1");
        }
        Channel channel = connection.createChannel();
        if (channel == null) {
            throw new IOException("the broker refused another channel (channel_max reached)");
        }
        ConfirmPublisher<T> p =
                new ConfirmPublisher<>(channel, windowSize, connection.getFrameMax(), maxBodyBytes, listener);
        channel.addReturnListener(p::onReturn);
        channel.addConfirmListener(
                (seq, multiple) -> p.settle(seq, multiple, true), (seq, multiple) -> p.settle(seq, multiple, false));
        channel.addShutdownListener(p::onShutdown);
        channel.confirmSelect();
        return p;
    }

    public boolean isOpen() {
        return !closed && retiredBecause == null && channel.isOpen();
    }

    /**
     * How many messages the broker nacked on this channel since it last acked one. A channel that
     * only ever gets nacks may be stuck rather than unlucky: on RabbitMQ 3.10, a channel opened
     * just as a quorum queue's leader node died can keep being nacked after a new leader was
     * elected, while a new channel on the same connection is acked at once (measured in the
     * failover test). The owner decides when to give up on the channel.
     */
    /** Why this publisher was retired (see {@link #publish}); empty while it is in service. */
    public Optional<String> retiredBecause() {
        return Optional.ofNullable(retiredBecause);
    }

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
     * is returned when the message settles. Its outcome reaches the listener exactly once, also
     * when it is never sent: a message that cannot be encoded (see {@link MessageEncoding}) is
     * reported {@code UNENCODABLE} at once, before a sequence number is taken.
     *
     * <p>If {@code basicPublish} throws anything but an I/O failure, the client may already have
     * used a sequence number for a message the broker never saw, and every later confirm would be
     * filed against the wrong message. The channel is then retired: this message fails, every
     * other message in flight is handed back as {@link PublishListener#unknown unknown}, and the
     * publisher takes nothing more ({@link #isOpen()} is false; open a new one).
     *
     * @throws IOException when the message could not be handed to the channel: it was not
     *     sent, its slot is returned, and the caller still owns it
     */
    public void publish(OutboundMessage message, T tag) throws IOException {
        if (retiredBecause != null) {
            window.release();
            throw new IOException("publisher channel retired: " + retiredBecause);
        }
        Optional<String> unencodable;
        try {
            unencodable = MessageEncoding.problem(message, frameMax, maxBodyBytes);
        } catch (RuntimeException | Error e) {
            // a fault of the check itself, not of the message: the caller still owns the message
            window.release();
            throw e;
        }
        if (unencodable.isPresent()) {
            report(tag, message.messageId(), l -> l.failed(tag, ErrorCode.UNENCODABLE, unencodable.get()));
            return;
        }
        long seq = channel.getNextPublishSeqNo();
        inFlight.put(seq, new InFlight<>(seq, tag, message.messageId(), System.nanoTime()));
        try {
            channel.basicPublish(message.exchange(), message.routingKey(), true, message.properties(), message.body());
        } catch (IOException | AlreadyClosedException e) {
            // the client took a sequence number for this message before it failed to write it
            InFlight<T> mine = inFlight.remove(seq);
            String why = "basicPublish failed: " + e.getClass().getSimpleName() + ": " + e.getMessage();
            if (channel.isOpen()) {
                // a channel that stayed open would now file every confirm one message late
                retire(why);
            } else {
                // closed under us (the broker's 404, 403 or 406, or the connection): nothing more
                // goes out on it, and its shutdown sweep, with the close's real reason, settles what
                // is in flight (suspects for a destination error); it must not be pre-empted here
                retiredBecause = why;
            }
            if (mine == null) {
                // the channel's shutdown sweep got here first and has reported this message: it is
                // settled, so the caller must not treat it as unsent (that would be two outcomes)
                return;
            }
            window.release();
            throw e instanceof IOException io ? io : new IOException(e);
        } catch (RuntimeException | Error e) {
            LOG.error("basicPublish threw; retiring the channel", e);
            InFlight<T> mine = inFlight.remove(seq);
            retire("basicPublish threw " + e.getClass().getSimpleName() + ": " + e.getMessage());
            if (mine != null) {
                // IllegalArgumentException is the client refusing to encode the message: it will
                // refuse it every time. Anything else may be transient.
                ErrorCode code =
                        e instanceof IllegalArgumentException ? ErrorCode.UNENCODABLE : ErrorCode.CHANNEL_ERROR;
                String detail = "the AMQP client refused it: " + e.getClass().getSimpleName() + ": " + e.getMessage();
                report(tag, mine.messageId(), l -> l.failed(tag, code, detail));
            }
            // an Error ends here too: the message has its outcome and the channel is out of
            // service; rethrowing would make the caller settle this message a second time
            return;
        }
        if (closed) {
            // the channel died while we were writing: its shutdown sweep may have run before we
            // registered, so settle the message here unless the sweep got it
            InFlight<T> orphan = inFlight.remove(seq);
            if (orphan != null) {
                report(
                        tag,
                        orphan.messageId(),
                        l -> l.failed(tag, ErrorCode.CONNECTION_LOST, "channel closed while publishing"));
            }
        }
    }

    /**
     * Hands one outcome to the listener and frees its slot, whatever the listener does: a listener
     * that throws loses only this message's report (its row goes back by lease recovery), never
     * the reports of the messages settled with it, and never a window slot.
     */
    private void report(T tag, String messageId, java.util.function.Consumer<PublishListener<T>> call) {
        try {
            call.accept(listener);
        } catch (RuntimeException | Error e) {
            LOG.error("the publish listener failed on the outcome of message {} ({})", messageId, tag, e);
        } finally {
            window.release();
        }
    }

    /**
     * Takes this channel out of service after {@code basicPublish} threw while it stayed open:
     * nothing more is published on it, and every message still unsettled is handed back as
     * unknown. Confirms already on their way could be filed against the wrong message if anything
     * more were sent, so nothing is trusted past this point; the messages sent before the throw
     * may well have reached the broker, and publishing them again is a duplicate consumers absorb.
     */
    private void retire(String why) {
        retiredBecause = why;
        closedByUs = true;
        if (!inFlight.isEmpty()) {
            LOG.warn("retiring publisher channel ({}); {} message(s) in flight handed back", why, inFlight.size());
        }
        List<InFlight<T>> unknown = new ArrayList<>();
        synchronized (nackedAwaitingReturn) {
            unknown.addAll(nackedAwaitingReturn.values());
            nackedAwaitingReturn.clear();
        }
        Map.Entry<Long, InFlight<T>> e;
        while ((e = inFlight.pollFirstEntry()) != null) {
            unknown.add(e.getValue());
        }
        returned.clear();
        for (InFlight<T> f : unknown) {
            report(
                    f.tag(),
                    f.messageId(),
                    l -> l.unknown(f.tag(), "in flight on a publisher channel retired after " + why));
        }
        try {
            channel.abort();
        } catch (IOException | RuntimeException closing) {
            LOG.debug("aborting a retired publisher channel", closing);
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

    /**
     * Reports first, then frees the slot: a free window means every outcome was handed on. A
     * listener that throws loses only its own message's report (its row goes back by lease
     * recovery), never the reports of the messages settled by the same confirm frame.
     */
    private void reportOnce(InFlight<T> f, Outcome outcome, Returned r) {
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

    private void onShutdown(ShutdownSignalException cause) {
        closed = true;
        if (closedByUs) {
            return; // the owner takes what is in flight with abandon()
        }
        resolveNacksWithoutReturn();
        ErrorCode code = FailureClassifier.classify(cause);
        String detail = FailureDescriptions.describe(cause);
        boolean suspects = FailureClassifier.blamesOneMessage(code);
        int n = 0;
        Map.Entry<Long, InFlight<T>> e;
        while ((e = inFlight.pollFirstEntry()) != null) {
            InFlight<T> f = e.getValue();
            returned.remove(f.messageId());
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
    public int expire(Duration timeout) {
        long limit = System.nanoTime() - timeout.toNanos();
        int n = 0;
        for (InFlight<T> f : inFlight.values()) {
            if (f.sentNanos() - limit > 0) {
                break; // sequence order is send order: everything after this is younger
            }
            if (inFlight.remove(f.sequence()) != null) {
                returned.remove(f.messageId());
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
    /**
     * What became of a message published alone.
     *
     * @param failure null when confirmed
     * @param handedOver false when it failed before {@code basic.publish} was attempted (no channel
     *     on a connection that is gone, say): the broker cannot have it, and the attempt says
     *     nothing about the message
     */
    public record SoloOutcome(ErrorCode failure, String detail, boolean handedOver) {
        public static final SoloOutcome CONFIRMED = new SoloOutcome(null, "confirmed", true);

        public SoloOutcome(ErrorCode failure, String detail) {
            this(failure, detail, true);
        }

        public boolean confirmed() {
            return failure == null;
        }

        /** A transient failure before the message left: try it again later without counting this. */
        public boolean notSent() {
            return !handedOver && failure != null && failure.retryable();
        }
    }

    /**
     * Publishes one message on a channel of its own and waits for its fate. Used to find which of
     * several suspects made the broker close a channel: the answer for this message alone is
     * unambiguous. A message that cannot be encoded is answered {@code UNENCODABLE} without being
     * sent; so is one the broker refuses with 406 PRECONDITION_FAILED on {@code basic.publish}
     * (on RabbitMQ: a body over its {@code max_message_size}), which would be refused every time.
     */
    public static SoloOutcome publishAlone(
            Connection connection, OutboundMessage message, Duration timeout, long maxBodyBytes) {
        Optional<String> unencodable = MessageEncoding.problem(message, connection.getFrameMax(), maxBodyBytes);
        if (unencodable.isPresent()) {
            return new SoloOutcome(ErrorCode.UNENCODABLE, unencodable.get());
        }
        Channel ch = null;
        boolean handedOver = false;
        try {
            ch = connection.createChannel();
            if (ch == null) {
                return new SoloOutcome(ErrorCode.CHANNEL_ERROR, "no channel available", false);
            }
            AtomicReference<Returned> ret = new AtomicReference<>();
            java.util.concurrent.CountDownLatch returnSeen = new java.util.concurrent.CountDownLatch(1);
            ch.addReturnListener(r -> {
                ret.set(new Returned(r.getReplyCode(), r.getReplyText()));
                returnSeen.countDown();
            });
            ch.confirmSelect();
            // from here on the broker may have it, even if basicPublish throws part way
            handedOver = true;
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
            return new SoloOutcome(FailureClassifier.classify(e), FailureDescriptions.describe(e), handedOver);
        } catch (IOException e) {
            if (e.getCause() instanceof ShutdownSignalException sse) {
                return new SoloOutcome(FailureClassifier.classify(sse), FailureDescriptions.describe(sse), handedOver);
            }
            return new SoloOutcome(
                    ErrorCode.CONNECTION_LOST, e.getClass().getSimpleName() + " " + e.getMessage(), handedOver);
        } catch (IllegalArgumentException e) {
            // the client refused to encode it after all (the channel is closed below, so its
            // advanced sequence number cannot mislead anyone)
            return new SoloOutcome(ErrorCode.UNENCODABLE, "the AMQP client refused it: " + e.getMessage());
        } catch (RuntimeException e) {
            return new SoloOutcome(
                    ErrorCode.CHANNEL_ERROR, e.getClass().getSimpleName() + " " + e.getMessage(), handedOver);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new SoloOutcome(ErrorCode.CONNECTION_LOST, "interrupted while waiting for a confirm", handedOver);
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
