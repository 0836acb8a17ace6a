package dev.outbox.consumer.runtime;

import com.rabbitmq.client.Channel;
import dev.outbox.consumer.InboundMessage;
import dev.outbox.consumer.MessageHandler;
import dev.outbox.consumer.NonRetryableMessageException;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.DeadLetters;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DatabaseUnavailableException;
import dev.outbox.persistence.consumer.HeldMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The held messages of an aggregate, once their predecessor committed: each applied in a
 * transaction of its own, in version order, until one is missing or fails; one that keeps failing
 * (or cannot succeed) goes to the dead-letter queue alone, from its stored copy, before it leaves
 * the held table, while its predecessor stays applied and later versions stay held behind it.
 */
final class HeldSuccessors {
    private static final Logger LOG = LoggerFactory.getLogger(HeldSuccessors.class);

    /** A held message could not be moved to the dead-letter queue: the delivery that found it is requeued. */
    static final class HeldNotSettledException extends Exception {
        private static final long serialVersionUID = 1L;

        HeldNotSettledException(String message) {
            super(message);
        }
    }

    private final ConsumerSettings settings;
    private final DeliveryDecision decision;
    private final ConsumerStats stats;
    private final IdempotentProcessor processor;
    private final MessageHandler handler;
    private final FailureCounter failures;
    private final ConsumerChannels channels;
    private final Settlement settlement;
    private final DatabaseWait databaseWait;

    HeldSuccessors(
            ConsumerSettings settings,
            DeliveryDecision decision,
            ConsumerStats stats,
            IdempotentProcessor processor,
            MessageHandler handler,
            FailureCounter failures,
            ConsumerChannels channels,
            Settlement settlement,
            DatabaseWait databaseWait) {
        this.settings = settings;
        this.decision = decision;
        this.stats = stats;
        this.processor = processor;
        this.handler = handler;
        this.failures = failures;
        this.channels = channels;
        this.settlement = settlement;
        this.databaseWait = databaseWait;
    }

    /**
     * Applies the aggregate's held successors one transaction each, in version order, until one
     * is missing or fails. A held message that keeps failing (or cannot succeed) goes to the
     * dead-letter queue by itself; the position stays at its predecessor, so later versions stay
     * held behind it.
     *
     * @throws DatabaseUnavailableException when the database is away
     * @throws DataAccessException when reading or discarding a held message fails otherwise
     */
    void applyAll(String aggregateType, String aggregateId) throws HeldNotSettledException {
        HeldMessage next;
        while ((next = processor.nextHeld(settings.name(), aggregateType, aggregateId)) != null) {
            String reason;
            int attempts;
            try {
                if (!processor.applyHeld(settings.name(), next, handler)) {
                    return; // another instance applied or moved it; that instance carries on
                }
                stats.heldApplied.increment();
                continue;
            } catch (NonRetryableMessageException e) {
                deadLetterHeld(next, DeliveryDecision.describe(e), 1);
                continue;
            } catch (DatabaseUnavailableException e) {
                throw e;
            } catch (Exception | LinkageError | AssertionError | StackOverflowError e) {
                // a statement refused by a reachable database counts too: it may fail every time
                reason = DeliveryDecision.describe(e);
                attempts = countFailure(next.messageId(), reason);
            }
            stats.failed.increment();
            if (!decision.spent(attempts)) {
                LOG.warn(
                        "consumer {} failed on held message_id={} (attempt {} of {}): {}",
                        settings.name(),
                        next.messageId(),
                        attempts,
                        settings.maxAttempts(),
                        reason);
                // the same rule as a delivery's, but tried again in place: it is no broker delivery to requeue
                channels.awaitClosing(decision.pauseAfter(attempts));
                continue;
            }
            deadLetterHeld(next, reason, attempts);
        }
    }

    /** Attempts so far for a held message; when they cannot be counted, enough to stop trying. */
    private int countFailure(String messageId, String reason) {
        try {
            return failures.failed(settings.name(), messageId, reason);
        } catch (DataAccessException e) {
            if (e.isTransient()) {
                // away, refused or in conflict for now: the delivery that found it is requeued (uncounted only
                // when the database is away, see successorsNotApplied)
                throw e;
            }
            LOG.error(
                    "consumer {} cannot count the failure of message_id={} ({}); giving up on it",
                    settings.name(),
                    messageId,
                    e.getMessage());
            return settings.maxAttempts();
        }
    }

    /** Forwards the stored message first, then forgets it: a crash in between leaves it held, never lost. */
    private void deadLetterHeld(HeldMessage message, String reason, int attempts) throws HeldNotSettledException {
        ConfirmPublisher.SoloOutcome outcome = DeadLetters.forwardStored(
                channels.connection(),
                settings.deadLetterQueue(),
                new DeadLetters.StoredMessage(
                        message.messageId(),
                        message.messageType(),
                        message.correlationId(),
                        IdempotentProcessor.headersOf(message),
                        message.body()),
                settings.name(),
                reason,
                attempts,
                settings.confirmTimeout());
        if (!outcome.confirmed()) {
            throw new HeldNotSettledException("could not dead-letter held message_id=" + message.messageId() + " ("
                    + outcome.failure() + " " + outcome.detail() + ")");
        }
        if (!processor.discardHeld(settings.name(), message)) {
            // another instance applied it or dead-lettered it first, between our read and this discard:
            // the copy just forwarded is a duplicate (a replay of it is absorbed as one), not a dead letter
            LOG.warn(
                    "consumer {}: held {} was settled by another instance while this one forwarded it to {} ({});"
                            + " the forwarded copy is a duplicate and is not counted",
                    settings.name(),
                    describe(message),
                    settings.deadLetterQueue(),
                    reason);
            return;
        }
        settlement.recordDeadLettered(message.messageId(), reason);
        stats.deadLettered.increment();
        LOG.error(
                "consumer {} dead-lettered held {} to {} after {} attempt(s): {};"
                        + " v{} stays applied and later versions stay held",
                settings.name(),
                describe(message),
                settings.deadLetterQueue(),
                attempts,
                reason,
                message.aggregateVersion() - 1);
    }

    /**
     * The delivery committed, but its held successors could not be applied, and not because the
     * database is away: the {@link DeliveryDecision} says whether its redelivery, a duplicate that
     * tries them again, is worth it; if so the failure is counted against this message first. The
     * successors stay held either way, for the aggregate's next delivery or an operator.
     *
     * @return the verdict on the delivery: requeued, or acked
     */
    DeliveryDecision.Verdict notApplied(
            Channel ch, InboundMessage message, DeliveryDecision.ApplyHeldSuccessors applying, DataAccessException e)
            throws DatabaseWait.Abandoned {
        stats.deliveryErrors.increment();
        String reason = DeliveryDecision.describe(e);
        DeliveryDecision.Verdict verdict =
                decision.afterSuccessors(applying, new DeliveryDecision.SuccessorsFailed(e.isTransient(), reason));
        int attempts = settings.maxAttempts();
        if (verdict instanceof DeliveryDecision.CountSuccessorsFailure failure) {
            DeliveryDecision.Count count;
            try {
                attempts = databaseWait.until(
                        ch,
                        message.messageId(),
                        () -> failures.failed(settings.name(), message.messageId(), "held successors: " + reason));
                count = new DeliveryDecision.Counted(attempts);
            } catch (DataAccessException again) {
                count = new DeliveryDecision.NotCounted(again.isTransient(), again.getMessage());
            }
            verdict = decision.afterSuccessorsCount(failure, count);
        }
        if (verdict instanceof DeliveryDecision.Requeue) {
            LOG.warn(
                    "consumer {}: message_id={} was applied, but the held successors of {} {} could not be"
                            + " applied ({}); requeued to try them again (attempt {} of {})",
                    settings.name(),
                    message.messageId(),
                    message.aggregateType(),
                    message.aggregateId(),
                    reason,
                    attempts,
                    settings.maxAttempts());
            return verdict;
        }
        LOG.error(
                "consumer {}: message_id={} was applied, but the held successors of {} {} could not be applied"
                        + " ({}); acked, they stay held in consumer_held_messages until the aggregate's next delivery or an"
                        + " operator",
                settings.name(),
                message.messageId(),
                message.aggregateType(),
                message.aggregateId(),
                reason,
                e);
        return verdict;
    }

    /** {@code message_id=m3 (order.cancelled v3 of order o-1)}, as the log lines about a held message name it. */
    private static String describe(HeldMessage message) {
        return "message_id=" + message.messageId() + " (" + message.messageType() + " v" + message.aggregateVersion()
                + " of " + message.aggregateType() + " " + message.aggregateId() + ")";
    }
}
