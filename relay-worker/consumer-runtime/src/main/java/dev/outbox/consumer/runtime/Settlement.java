package dev.outbox.consumer.runtime;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Delivery;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.DeadLetters;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link DeliveryDecision}'s verdict executed on the delivery's channel: acked (and counted),
 * requeued after a pause, or forwarded to the dead-letter queue (confirmed, with its reason and
 * attempts) and then acked, and the dead letter noted in {@code consumer_failures}.
 */
final class Settlement {
    private static final Logger LOG = LoggerFactory.getLogger(Settlement.class);

    private final ConsumerSettings settings;
    private final DeliveryDecision decision;
    private final ConsumerStats stats;
    private final FailureCounter failures;
    private final ConsumerChannels channels;

    Settlement(
            ConsumerSettings settings,
            DeliveryDecision decision,
            ConsumerStats stats,
            FailureCounter failures,
            ConsumerChannels channels) {
        this.settings = settings;
        this.decision = decision;
        this.stats = stats;
        this.failures = failures;
        this.channels = channels;
    }

    /** Executes a verdict that settles the delivery; one that still asks for a fact is a bug of the caller's. */
    void settle(Channel ch, Delivery delivery, String messageId, DeliveryDecision.Verdict verdict) throws IOException {
        long tag = delivery.getEnvelope().getDeliveryTag();
        DeliverySpans.settled(verdict);
        if (verdict instanceof DeliveryDecision.Ack ack) {
            ch.basicAck(tag, false);
            stats.count(ack.counted());
        } else if (verdict instanceof DeliveryDecision.Requeue requeue) {
            requeue(ch, tag, requeue.after());
        } else if (verdict instanceof DeliveryDecision.DeadLetter dead) {
            deadLetter(ch, delivery, messageId, dead.reason(), dead.attempts());
        } else {
            throw new IllegalStateException("not a settlement of the delivery: " + verdict);
        }
    }

    /** A delivery whose handling threw past the framework: dead-lettered with the error, or its channel closed so the broker requeues it. */
    void afterError(Channel ch, Delivery delivery, DeliveryDecision.DeadLetter dead) {
        if (!ch.isOpen()) {
            LOG.warn(
                    "consumer {}: channel closed; the broker requeues delivery {}",
                    settings.name(),
                    delivery.getEnvelope().getDeliveryTag());
            return;
        }
        try {
            DeliverySpans.settled(dead);
            deadLetter(ch, delivery, delivery.getProperties().getMessageId(), dead.reason(), dead.attempts());
        } catch (Throwable again) { // NOPMD: still the boundary
            stats.deliveryErrors.increment();
            LOG.error(
                    "consumer {}: cannot settle delivery {}; closing its channel so the broker requeues it",
                    settings.name(),
                    delivery.getEnvelope().getDeliveryTag(),
                    again);
            ConsumerChannels.closeQuietly(ch);
        }
    }

    /** Gives the delivery back to the broker after a pause (a requeued message comes straight back). */
    void requeue(Channel ch, long tag, Duration after) throws IOException {
        channels.awaitClosing(after);
        ch.basicNack(tag, false, true);
        stats.requeued.increment();
    }

    /** Forwards the delivery, confirmed, to the dead-letter queue with the reason, then acks it; requeues it when the forward is not confirmed. */
    void deadLetter(Channel ch, Delivery delivery, String messageId, String reason, int attempts) throws IOException {
        ConfirmPublisher.SoloOutcome outcome = DeadLetters.forward(
                channels.connection(),
                settings.deadLetterQueue(),
                delivery,
                settings.name(),
                reason,
                attempts,
                settings.confirmTimeout());
        if (!outcome.confirmed()) {
            LOG.error(
                    "consumer {} could not dead-letter message_id={} ({} {}); requeued",
                    settings.name(),
                    messageId,
                    outcome.failure(),
                    outcome.detail());
            requeue(
                    ch,
                    delivery.getEnvelope().getDeliveryTag(),
                    decision.notDeadLettered().after());
            return;
        }
        recordDeadLettered(messageId, reason);
        ch.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
        stats.deadLettered.increment();
        LOG.error(
                "consumer {} dead-lettered message_id={} to {} after {} attempt(s): {}",
                settings.name(),
                messageId,
                settings.deadLetterQueue(),
                attempts,
                reason);
    }

    /** The consumer's note of a dead letter in {@code consumer_failures}; the dead letter itself is already safe. */
    void recordDeadLettered(String messageId, String reason) {
        if (messageId == null || messageId.isBlank() || messageId.indexOf('\u0000') >= 0) {
            return;
        }
        try {
            failures.deadLettered(settings.name(), messageId, reason);
        } catch (RuntimeException e) {
            // the dead letter itself is safe in its queue; this row is only the consumer's note of it
            LOG.warn(
                    "dead-lettering of message_id={} not recorded in consumer_failures: {}", messageId, e.getMessage());
        }
    }
}
