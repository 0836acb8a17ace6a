package dev.outbox.messaging.publish;

import dev.outbox.messaging.publish.ConfirmPublisher.InFlight;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Pairs each {@code basic.return} of a {@link ConfirmPublisher}'s channel with the confirm of the
 * same message, whichever of the two comes first, so that a returned message is never reported
 * confirmed (RabbitMQ acks it after the return) nor merely nacked (Qpid Broker-J nacks it before
 * the return). It owns the returns still waiting for their confirm and the nacked messages still
 * waiting for a return; the messages' outcomes it decides go to the {@link ConfirmWindow} that
 * reports them.
 *
 * <p>Returns arrive on the connection's thread, as do confirms; a nack left waiting is decided on
 * the grace timer's thread at the latest.
 */
final class ReturnMatcher<T> {
    /** How long a nacked message waits for a return that may follow its nack (Qpid's order). */
    static final Duration RETURN_GRACE = Duration.ofMillis(250);

    private static final ScheduledExecutorService GRACE_TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "confirm-publisher-grace");
        t.setDaemon(true);
        return t;
    });

    /** Returns by message id whose confirm has not come yet (RabbitMQ's order). */
    private final Map<String, BasicReturn> returned = new ConcurrentHashMap<>();
    /**
     * Nacked messages whose return may still be on its way: Qpid Broker-J sends {@code basic.nack}
     * and then {@code basic.return} for an unroutable mandatory message (RabbitMQ sends the return
     * before its ack). A nacked message is decided when the next confirm frame arrives on the
     * channel, or after {@link #RETURN_GRACE}: a return in between makes it {@code UNROUTABLE}.
     */
    private final Map<String, InFlight<T>> nackedAwaitingReturn = new LinkedHashMap<>();

    private final BiConsumer<InFlight<T>, BasicReturn> returnedMessage;
    private final Consumer<InFlight<T>> nackedMessage;

    /**
     * @param returnedMessage reports a message returned by the broker
     * @param nackedMessage reports a message nacked and not returned
     */
    ReturnMatcher(BiConsumer<InFlight<T>, BasicReturn> returnedMessage, Consumer<InFlight<T>> nackedMessage) {
        this.returnedMessage = returnedMessage;
        this.nackedMessage = nackedMessage;
    }

    /** A {@code basic.return} for the message with this id (connection thread). */
    void onReturn(String messageId, int replyCode, String replyText) {
        if (messageId == null) {
            return;
        }
        InFlight<T> nacked;
        synchronized (nackedAwaitingReturn) {
            nacked = nackedAwaitingReturn.remove(messageId);
        }
        if (nacked != null) {
            // Qpid's order: the nack came first, this return says why
            returnedMessage.accept(nacked, new BasicReturn(replyCode, replyText));
        } else {
            // RabbitMQ's order: the return comes first, the settle of its ack sees it
            returned.put(messageId, new BasicReturn(replyCode, replyText));
        }
    }

    /** Takes the return that came before this message's confirm; null when there was none. */
    BasicReturn takeReturn(String messageId) {
        return returned.remove(messageId);
    }

    /** Forgets a return of a message settled otherwise (expired, or lost with its channel). */
    void forget(String messageId) {
        returned.remove(messageId);
    }

    /** Keeps a nacked message until its return comes, the next confirm frame, or the grace ends. */
    void awaitReturn(InFlight<T> f) {
        synchronized (nackedAwaitingReturn) {
            nackedAwaitingReturn.put(f.messageId(), f);
        }
        GRACE_TIMER.schedule(() -> resolveNack(f.messageId()), RETURN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Reports as nacked every nacked message still waiting: no return came before this point. */
    void resolveNacksWithoutReturn() {
        List<InFlight<T>> nacked;
        synchronized (nackedAwaitingReturn) {
            if (nackedAwaitingReturn.isEmpty()) {
                return;
            }
            nacked = new ArrayList<>(nackedAwaitingReturn.values());
            nackedAwaitingReturn.clear();
        }
        nacked.forEach(nackedMessage);
    }

    private void resolveNack(String messageId) {
        InFlight<T> f;
        synchronized (nackedAwaitingReturn) {
            f = nackedAwaitingReturn.remove(messageId);
        }
        if (f != null) {
            nackedMessage.accept(f);
        }
    }

    /** Takes every nacked message still waiting, unreported, for a caller that hands them back. */
    List<InFlight<T>> takeNacked() {
        synchronized (nackedAwaitingReturn) {
            List<InFlight<T>> out = new ArrayList<>(nackedAwaitingReturn.values());
            nackedAwaitingReturn.clear();
            return out;
        }
    }

    /** Forgets every return waiting for its confirm (the channel is out of service). */
    void forgetAll() {
        returned.clear();
    }
}
