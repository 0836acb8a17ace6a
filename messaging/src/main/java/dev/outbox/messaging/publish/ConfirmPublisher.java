package dev.outbox.messaging.publish;

import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.kernel.outbox.ErrorCode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
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
 * <p>This class owns the channel: opening it in confirm mode, sending on it (the encoding check
 * first, then a sequence number and {@code basicPublish}), retiring it when the client's sequence
 * numbers can no longer be trusted, and closing it. The messages in flight and their window
 * slots are the {@link ConfirmWindow}'s, which settles confirms, expires overdue ones and
 * sweeps a dead channel; the {@link ReturnMatcher} pairs returns with confirms; a message
 * published alone goes through the {@link SoloPublisher}.
 *
 * <p>One thread publishes ({@link #publish}); confirms, returns and shutdowns arrive on the
 * connection's thread. Not for sharing between publishing threads: each has a channel of its own.
 */
public final class ConfirmPublisher<T> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConfirmPublisher.class);

    /** A message sent and not yet settled. */
    public record InFlight<T>(long sequence, T tag, String messageId, long sentNanos) {}

    private final Channel channel;
    private final ConfirmWindow<PublishSpans.Traced<T>> window;
    private final PublishSpans spans;

    private volatile boolean closed;
    private volatile boolean closedByUs;
    /** Set once {@code basicPublish} threw something other than an I/O failure: see {@link #retire}. */
    private volatile String retiredBecause;

    private final int frameMax;
    private final long maxBodyBytes;

    private ConfirmPublisher(
            Channel channel,
            int windowSize,
            int frameMax,
            long maxBodyBytes,
            PublishListener<T> listener,
            PublishSpans spans) {
        this.channel = channel;
        this.window = new ConfirmWindow<>(windowSize, PublishSpans.ending(listener));
        this.spans = spans;
        this.frameMax = frameMax;
        this.maxBodyBytes = maxBodyBytes;
    }

    /**
     * Opens a channel in confirm mode on {@code connection}. Bodies over {@code maxBodyBytes} (the
     * broker's {@code max_message_size}) are refused as {@code UNENCODABLE} without being sent.
     */
    public static <T> ConfirmPublisher<T> open(
            Connection connection, int windowSize, long maxBodyBytes, PublishListener<T> listener) throws IOException {
        return open(connection, windowSize, maxBodyBytes, listener, PublishSpans.OFF);
    }

    /** As {@link #open(Connection, int, long, PublishListener)}, each publish in a span of {@code spans}. */
    public static <T> ConfirmPublisher<T> open(
            Connection connection, int windowSize, long maxBodyBytes, PublishListener<T> listener, PublishSpans spans)
            throws IOException {
        if (windowSize < 1) {
            throw new IllegalArgumentException("window must be at least 1");
        }
        Channel channel = connection.createChannel();
        if (channel == null) {
            throw new IOException("the broker refused another channel (channel_max reached)");
        }
        ConfirmPublisher<T> p =
                new ConfirmPublisher<>(channel, windowSize, connection.getFrameMax(), maxBodyBytes, listener, spans);
        ConfirmWindow<PublishSpans.Traced<T>> w = p.window;
        channel.addReturnListener((replyCode, replyText, exchange, routingKey, properties, body) ->
                w.onReturn(properties.getMessageId(), replyCode, replyText));
        channel.addConfirmListener(
                (seq, multiple) -> w.settle(seq, multiple, true), (seq, multiple) -> w.settle(seq, multiple, false));
        channel.addShutdownListener(p::onShutdown);
        channel.confirmSelect();
        return p;
    }

    public boolean isOpen() {
        return !closed && retiredBecause == null && channel.isOpen();
    }

    /** Why this publisher was retired (see {@link #publish}); empty while it is in service. */
    public Optional<String> retiredBecause() {
        return Optional.ofNullable(retiredBecause);
    }

    /**
     * How many messages the broker nacked on this channel since it last acked one. A channel that
     * only ever gets nacks may be stuck rather than unlucky: on RabbitMQ 3.10, a channel opened
     * just as a quorum queue's leader node died can keep being nacked after a new leader was
     * elected, while a new channel on the same connection is acked at once (measured in the
     * failover test). The owner decides when to give up on the channel.
     */
    public int nackStreak() {
        return window.nackStreak();
    }

    public int windowSize() {
        return window.windowSize();
    }

    /** Free slots in the window right now. */
    public int availableSlots() {
        return window.availableSlots();
    }

    public int inFlightCount() {
        return window.inFlightCount();
    }

    /** Takes one window slot, waiting up to {@code maxWait}. */
    public boolean acquireSlot(Duration maxWait) throws InterruptedException {
        return window.acquireSlot(maxWait);
    }

    /** Gives back a slot taken with {@link #acquireSlot} but not used for a publish. */
    public void releaseSlot() {
        window.releaseSlot();
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
    public void publish(OutboundMessage mapped, T own) throws IOException {
        if (retiredBecause != null) {
            window.releaseSlot();
            throw new IOException("publisher channel retired: " + retiredBecause);
        }
        PublishSpans.Started started = null;
        Optional<String> unencodable;
        try {
            // the span first: the message carries its context, and the encoding check sees it so
            started = spans.start(mapped);
            unencodable = MessageEncoding.problem(started.message(), frameMax, maxBodyBytes);
        } catch (RuntimeException | Error e) {
            // a fault of the check (or the tracer) itself, not of the message: the caller still owns it
            window.releaseSlot();
            if (started != null) {
                PublishSpans.notSent(started.span(), "the encoding check failed");
            }
            throw e;
        }
        OutboundMessage message = started.message();
        PublishSpans.Traced<T> tag = new PublishSpans.Traced<>(own, started.span());
        if (unencodable.isPresent()) {
            window.report(tag, message.messageId(), l -> l.failed(tag, ErrorCode.UNENCODABLE, unencodable.get()));
            return;
        }
        long seq = channel.getNextPublishSeqNo();
        window.sending(seq, tag, message.messageId());
        try {
            channel.basicPublish(message.exchange(), message.routingKey(), true, message.properties(), message.body());
        } catch (IOException | AlreadyClosedException e) {
            // the client took a sequence number for this message before it failed to write it
            InFlight<PublishSpans.Traced<T>> mine = window.take(seq);
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
            window.releaseSlot();
            PublishSpans.notSent(started.span(), why);
            throw e instanceof IOException io ? io : new IOException(e);
        } catch (RuntimeException | Error e) {
            LOG.error("basicPublish threw; retiring the channel", e);
            InFlight<PublishSpans.Traced<T>> mine = window.take(seq);
            retire("basicPublish threw " + e.getClass().getSimpleName() + ": " + e.getMessage());
            if (mine != null) {
                // IllegalArgumentException is the client refusing to encode the message: it will
                // refuse it every time. Anything else may be transient.
                ErrorCode code =
                        e instanceof IllegalArgumentException ? ErrorCode.UNENCODABLE : ErrorCode.CHANNEL_ERROR;
                String detail = "the AMQP client refused it: " + e.getClass().getSimpleName() + ": " + e.getMessage();
                window.report(tag, mine.messageId(), l -> l.failed(tag, code, detail));
            }
            // an Error ends here too: the message has its outcome and the channel is out of
            // service; rethrowing would make the caller settle this message a second time
            return;
        }
        if (closed) {
            // the channel died while we were writing: its shutdown sweep may have run before we
            // registered, so settle the message here unless the sweep got it
            InFlight<PublishSpans.Traced<T>> orphan = window.take(seq);
            if (orphan != null) {
                window.report(
                        tag,
                        orphan.messageId(),
                        l -> l.failed(tag, ErrorCode.CONNECTION_LOST, "channel closed while publishing"));
            }
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
        int inFlight = window.inFlightCount();
        if (inFlight > 0) {
            LOG.warn("retiring publisher channel ({}); {} message(s) in flight handed back", why, inFlight);
        }
        for (InFlight<PublishSpans.Traced<T>> f : window.takeAll()) {
            window.report(
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

    private void onShutdown(ShutdownSignalException cause) {
        closed = true;
        if (closedByUs) {
            return; // the owner takes what is in flight with abandon()
        }
        window.failAllOnShutdown(cause);
    }

    /**
     * Fails, as {@code CONFIRM_TIMEOUT}, every message sent more than {@code timeout} ago.
     *
     * @return how many expired
     */
    public int expire(Duration timeout) {
        return window.expire(timeout);
    }

    /** Waits until every message in flight has settled; false if some remain at the deadline. */
    public boolean awaitSettled(Duration timeout) throws InterruptedException {
        return window.awaitSettled(timeout);
    }

    /**
     * Stops reporting and hands back every unsettled message, for a caller that is shutting down
     * and will release them itself. Their outcome is unknown: they may have reached the broker.
     */
    public List<InFlight<T>> abandon() {
        closedByUs = true;
        List<InFlight<T>> out = new java.util.ArrayList<>();
        for (InFlight<PublishSpans.Traced<T>> f : window.abandon()) {
            PublishSpans.abandoned(f.tag().span());
            out.add(new InFlight<>(f.sequence(), f.tag().tag(), f.messageId(), f.sentNanos()));
        }
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
        return SoloPublisher.publish(connection, message, timeout, maxBodyBytes);
    }

    /** {@link #publishAlone(Connection, OutboundMessage, Duration, long)} in a span of {@code spans}. */
    public static SoloOutcome publishAlone(
            Connection connection, OutboundMessage message, Duration timeout, long maxBodyBytes, PublishSpans spans) {
        return spans.solo(message, traced -> SoloPublisher.publish(connection, traced, timeout, maxBodyBytes));
    }
}
