package dev.outbox.consumer.runtime;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import dev.outbox.consumer.InboundMessage;
import dev.outbox.consumer.MessageHandler;
import dev.outbox.consumer.NonRetryableMessageException;
import dev.outbox.consumer.runtime.DeliveryDecision.Verdict;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DatabaseUnavailableException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs one consumer on one queue with manual acks: {@code channels} channels, each with {@code
 * prefetch} unacknowledged deliveries, each delivery in a span ({@link DeliverySpans}). Every
 * delivery is processed, then acked; never the other way round.
 *
 * <ul>
 *   <li>{@link #transactional}: the effect shares the dedupe transaction
 *       ({@link IdempotentProcessor}): exactly once in effect, in aggregate order.
 *   <li>{@link #atMostOnce}: the effect is outside the database ({@link SideEffectGuard}).
 * </ul>
 *
 * Every delivery is first checked against the wire contract of the queue ({@link WireContract}):
 * one that breaks it goes to the dead-letter queue at once, the rule it broke in the reason and
 * counted per rule ({@code outbox_consumer_contract_violations_total{rule}}); no handler sees it.
 *
 * <p>Failures: a database outage ({@link DatabaseUnavailableException}) is waited out with the
 * delivery in hand, unacked, and tried again until the database answers: it is neither counted
 * nor requeued, because every requeue raises a quorum queue's delivery count towards its
 * {@code x-delivery-limit} (see {@link DatabaseWait}); any other failure, a statement the reachable database refused (timeout, out of memory) or a
 * concurrency conflict included, is counted (in its own transaction) and requeued after a pause,
 * until {@code maxAttempts}, when the message goes to the dead-letter queue with the reason; a
 * {@link NonRetryableMessageException} goes there at once. A poison message never loops for ever. A held successor is applied after its predecessor
 * committed, in a transaction of its own, and a held message that fails goes to the dead-letter
 * queue itself; its predecessor stays applied.
 *
 * <p>Nothing leaves the delivery callback: amqp-client closes a channel whose consumer throws,
 * and that would silently leave the queue without consumers. What escapes the handling above is
 * caught at the callback, counted ({@link ConsumerStats#deliveryErrors}) and the delivery dead-lettered with
 * the reason. The recovery timer catches everything its tasks throw, {@link Error}s included,
 * counts it and carries on. A channel that closes or a consumer the broker cancels (its queue was deleted, for
 * example) is reopened and resubscribed with backoff for as long as the connection lives; a new
 * connection restarts everything through {@link #start}. {@link #isConsuming} says whether every
 * channel is consuming right now.
 *
 * <p>Its parts: {@link ConsumerChannels} (the subscriptions and their recovery),
 * {@link DatabaseWait} (a delivery held while the database is away), {@link HeldSuccessors}
 * (messages that arrived before their predecessor), {@link Settlement} (ack, requeue,
 * dead-letter: a verdict executed on the channel) and {@link ConsumerStats}. What each delivery
 * comes to is decided by {@link DeliveryDecision}, from facts alone; this class fetches the facts
 * it asks for (the contract check, the step, a failure count, the held successors) and hands its
 * verdict to {@link Settlement}.
 */
public final class ConsumerRunner implements AutoCloseable, MeterBinder {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerRunner.class);

    @FunctionalInterface
    private interface Step {
        IdempotentProcessor.Outcome run(InboundMessage message) throws Exception;
    }

    private final ConsumerSettings settings;
    private final WireContract contract;
    private final Step step;
    private final IdempotentProcessor processor;
    private final MessageHandler handler;
    private final FailureCounter failures;

    private final DeliveryDecision decision;
    private final ConsumerStats stats = new ConsumerStats();
    private final ConsumerChannels channels;
    private final HeldSuccessors heldSuccessors;
    private final Settlement settlement;
    private final DatabaseWait databaseWait;
    private volatile DeliverySpans spans = DeliverySpans.OFF;

    private ConsumerRunner(
            ConsumerSettings settings,
            WireContract contract,
            Step step,
            IdempotentProcessor processor,
            MessageHandler handler,
            FailureCounter failures) {
        this.settings = settings;
        this.contract = contract;
        this.step = step;
        this.processor = processor;
        this.handler = handler;
        this.failures = failures;
        this.decision = DeliveryDecision.of(settings);
        this.channels = new ConsumerChannels(settings, stats, this::deliver);
        this.settlement = new Settlement(settings, decision, stats, failures, channels);
        this.databaseWait = new DatabaseWait(settings, stats, channels);
        this.heldSuccessors = new HeldSuccessors(
                settings, decision, stats, processor, handler, failures, channels, settlement, databaseWait);
    }

    /**
     * The effect runs in the dedupe transaction: exactly once in effect, in aggregate order. The
     * deliveries must honour {@code contract} ({@link WireContract#forQueue} for a queue's).
     */
    public static ConsumerRunner transactional(
            ConsumerSettings settings,
            WireContract contract,
            IdempotentProcessor processor,
            MessageHandler handler,
            FailureCounter failures) {
        return transactional(settings, contract, processor, handler, failures, true);
    }

    /**
     * As above; with {@code inAggregateOrder} false every message is applied as delivered
     * ({@link dev.outbox.consumer.ConsumerRegistration.Ordering#AS_DELIVERED}).
     */
    public static ConsumerRunner transactional(
            ConsumerSettings settings,
            WireContract contract,
            IdempotentProcessor processor,
            MessageHandler handler,
            FailureCounter failures,
            boolean inAggregateOrder) {
        return new ConsumerRunner(
                settings,
                contract,
                m -> processor.process(settings.name(), m, handler, inAggregateOrder),
                processor,
                handler,
                failures);
    }

    /**
     * The effect is a call outside the database: it is made at most once. The dedupe record and a
     * {@code PENDING} side-effect row commit before the call; a failed or interrupted call is not
     * repeated, its row stays {@code PENDING} for repair and the message id is logged.
     */
    public static ConsumerRunner atMostOnce(
            ConsumerSettings settings,
            SideEffectGuard guard,
            String effectName,
            ExternalEffect effect,
            FailureCounter failures) {
        return atMostOnce(settings, WireContract.forQueue(settings.queue()), guard, effectName, effect, failures);
    }

    /** {@link #atMostOnce(ConsumerSettings, SideEffectGuard, String, ExternalEffect, FailureCounter)} under {@code contract}. */
    public static ConsumerRunner atMostOnce(
            ConsumerSettings settings,
            WireContract contract,
            SideEffectGuard guard,
            String effectName,
            ExternalEffect effect,
            FailureCounter failures) {
        return new ConsumerRunner(
                settings,
                contract,
                m -> {
                    if (!guard.begin(settings.name(), m.messageId(), effectName)) {
                        return IdempotentProcessor.Outcome.of(IdempotentProcessor.Result.DUPLICATE);
                    }
                    LOG.info(
                            "{}: performing {} for message_id={} (recorded PENDING first)",
                            settings.name(),
                            effectName,
                            m.messageId());
                    try {
                        effect.perform(m);
                    } catch (Exception e) {
                        LOG.error(
                                "{}: {} for message_id={} failed and will not be repeated (it may have happened);"
                                        + " left PENDING in consumer_side_effects for repair",
                                settings.name(),
                                effectName,
                                m.messageId(),
                                e);
                        return IdempotentProcessor.Outcome.of(IdempotentProcessor.Result.APPLIED);
                    }
                    guard.done(settings.name(), m.messageId(), effectName);
                    return IdempotentProcessor.Outcome.of(IdempotentProcessor.Result.APPLIED);
                },
                null,
                null,
                failures);
    }

    /** Each delivery processed in a span of {@code spans}; set before {@link #start}. */
    void tracedBy(DeliverySpans spans) {
        this.spans = spans;
    }

    void deliver(Channel ch, Delivery delivery) {
        spans.around(delivery, () -> handle(ch, delivery));
    }

    /** The callback boundary: nothing is thrown to amqp-client, which would close the channel. */
    private void handle(Channel ch, Delivery delivery) {
        try {
            onDelivery(ch, delivery);
        } catch (Throwable t) { // NOPMD: the callback boundary catches everything, see the class comment
            stats.deliveryErrors.increment();
            LOG.error(
                    "consumer {}: delivery {} (message_id={}) failed outside the framework's handling",
                    settings.name(),
                    delivery.getEnvelope().getDeliveryTag(),
                    delivery.getProperties().getMessageId(),
                    t);
            settlement.afterError(ch, delivery, decision.escaped(t));
        } finally {
            MDC.clear();
        }
    }

    private void onDelivery(Channel ch, Delivery delivery) throws IOException {
        InboundMessage message;
        try {
            message = contract.check(delivery);
        } catch (WireContract.Violation v) {
            stats.violated(v.rule());
            settlement.settle(ch, delivery, delivery.getProperties().getMessageId(), decision.contractBroken(v));
            return;
        }
        MDC.put("message_id", message.messageId());
        MDC.put("aggregate_id", String.valueOf(message.aggregateId()));
        MDC.put("correlation_id", String.valueOf(message.correlationId()));
        try {
            settlement.settle(ch, delivery, message.messageId(), decide(ch, message));
        } catch (DatabaseWait.Abandoned e) {
            DeliverySpans.leftUnacked();
            LOG.info(
                    "consumer {}: message_id={} left unacked while the database was away ({}); the broker delivers it"
                            + " again",
                    settings.name(),
                    message.messageId(),
                    channels.isClosed() ? "the consumer is stopping" : "its channel closed");
        }
    }

    /**
     * Runs the step, then fetches each fact the {@link DeliveryDecision} asks for, until its
     * verdict settles the delivery.
     */
    private Verdict decide(Channel ch, InboundMessage message) throws DatabaseWait.Abandoned {
        Verdict verdict;
        Throwable failure = null;
        try {
            verdict = decision.afterStep(databaseWait.until(ch, message.messageId(), () -> step.run(message)));
        } catch (DatabaseWait.Abandoned e) {
            throw e;
        } catch (Exception | LinkageError | AssertionError | StackOverflowError e) {
            // a handler's bug is the message's failure: counted, retried, then dead-lettered
            failure = e;
            verdict = decision.afterFailure(e);
        }
        if (verdict instanceof DeliveryDecision.CountFailure counting) {
            return countFailure(ch, message, counting, failure);
        }
        if (verdict instanceof DeliveryDecision.ApplyHeldSuccessors applying) {
            return applySuccessors(ch, message, applying);
        }
        return verdict;
    }

    private Verdict countFailure(
            Channel ch, InboundMessage message, DeliveryDecision.CountFailure failure, Throwable cause)
            throws DatabaseWait.Abandoned {
        stats.failed.increment();
        DeliveryDecision.Count count;
        try {
            count = new DeliveryDecision.Counted(databaseWait.until(
                    ch,
                    message.messageId(),
                    () -> failures.failed(settings.name(), message.messageId(), failure.reason())));
        } catch (DataAccessException e) {
            count = new DeliveryDecision.NotCounted(e.isTransient(), e.getMessage());
        }
        Verdict verdict = decision.afterCount(failure, count);
        if (verdict instanceof DeliveryDecision.Requeue && count instanceof DeliveryDecision.NotCounted not) {
            LOG.warn(
                    "consumer {} cannot count the failure of message_id={} ({}); requeued",
                    settings.name(),
                    message.messageId(),
                    not.error());
        } else if (verdict instanceof DeliveryDecision.Requeue && count instanceof DeliveryDecision.Counted counted) {
            LOG.warn(
                    "consumer {} failed on message_id={} (attempt {} of {}, delivered {} time(s) before): {}; requeued",
                    settings.name(),
                    message.messageId(),
                    counted.attempts(),
                    settings.maxAttempts(),
                    message.deliveryCount(),
                    failure.reason(),
                    cause);
        }
        return verdict;
    }

    /** This message committed: its held successors are tried until the database lets them be. */
    private Verdict applySuccessors(Channel ch, InboundMessage message, DeliveryDecision.ApplyHeldSuccessors applying)
            throws DatabaseWait.Abandoned {
        try {
            databaseWait.until(ch, message.messageId(), () -> {
                heldSuccessors.applyAll(message.aggregateType(), message.aggregateId());
                return null;
            });
            return decision.afterSuccessors(applying, new DeliveryDecision.SuccessorsApplied());
        } catch (DataAccessException e) {
            return heldSuccessors.notApplied(ch, message, applying, e);
        } catch (HeldSuccessors.HeldNotSettledException e) {
            LOG.error(
                    "consumer {}: {}; message_id={} requeued to try again",
                    settings.name(),
                    e.getMessage(),
                    message.messageId());
            return decision.afterSuccessors(applying, new DeliveryDecision.HeldNotDeadLettered(e.getMessage()));
        }
    }

    public ConsumerSettings settings() {
        return settings;
    }

    /**
     * Starts consuming on {@code connection}; called again with the new connection after a
     * reconnect ({@link ConsumerChannels#start}).
     */
    public void start(Connection connection) {
        channels.start(connection);
    }

    /** True while every channel is subscribed and the broker has confirmed it. */
    public boolean isConsuming() {
        return channels.isConsuming();
    }

    /** Channels whose consumer is subscribed right now. */
    public int consumingChannels() {
        return channels.consumingChannels();
    }

    /** What the consumer has done since it started. */
    public ConsumerStats stats() {
        return stats;
    }

    /** The contract deliveries are checked against. */
    public WireContract contract() {
        return contract;
    }

    /**
     * Exports the counters as {@code outbox_consumer_*_total{consumer=...}} and the channels that
     * consume right now as {@code outbox_consumer_consuming_channels}.
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        stats.bindTo(registry, settings.name());
        Gauge.builder("outbox.consumer.waiting.for.database", stats, ConsumerStats::waitingForDatabase)
                .description("deliveries held unacked until the database answers")
                .tag("consumer", settings.name())
                .strongReference(true)
                .register(registry);
        Gauge.builder("outbox.consumer.consuming.channels", this, ConsumerRunner::consumingChannels)
                .description("channels whose consumer is subscribed now (of outbox_consumer_channels)")
                .tag("consumer", settings.name())
                .strongReference(true)
                .register(registry);
        Gauge.builder("outbox.consumer.channels", channels, ConsumerChannels::channels)
                .description("channels this consumer runs")
                .tag("consumer", settings.name())
                .strongReference(true)
                .register(registry);
    }

    @Override
    public void close() {
        channels.close();
    }
}
