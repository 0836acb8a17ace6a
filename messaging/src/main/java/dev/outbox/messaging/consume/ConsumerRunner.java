package dev.outbox.messaging.consume;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.DeadLetters;
import dev.outbox.persistence.DataAccessException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs one consumer on one queue with manual acks: {@code channels} channels, each with
 * {@code prefetch} unacknowledged deliveries. Every delivery is processed, then acked; never the
 * other way round.
 *
 * <ul>
 *   <li>{@link #transactional}: the effect shares the dedupe transaction
 *       ({@link IdempotentProcessor}): exactly once in effect, in aggregate order.
 *   <li>{@link #atMostOnce}: the effect is outside the database ({@link SideEffectGuard}).
 * </ul>
 *
 * Failures: a database outage requeues without counting; any other failure is counted (in its
 * own transaction) and requeued after a pause, until {@code maxAttempts}, when the message goes
 * to the dead-letter queue with the reason; a {@link NonRetryableMessageException} or a delivery
 * that breaks the wire contract goes there at once. A poison message never loops for ever.
 */
public final class ConsumerRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerRunner.class);

    @FunctionalInterface
    private interface Step {
        IdempotentProcessor.Outcome run(InboundMessage message) throws Exception;
    }

    private final ConsumerSettings settings;
    private final Step step;
    private final FailureCounter failures;
    private final List<Channel> channels = new ArrayList<>();
    private volatile Connection connection;

    private final LongAdder applied = new LongAdder();
    private final LongAdder heldApplied = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder held = new LongAdder();
    private final LongAdder stale = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder deadLettered = new LongAdder();

    private ConsumerRunner(ConsumerSettings settings, Step step, FailureCounter failures) {
        this.settings = settings;
        this.step = step;
        this.failures = failures;
    }

    /** The effect runs in the dedupe transaction: exactly once in effect, in aggregate order. */
    public static ConsumerRunner transactional(ConsumerSettings settings, IdempotentProcessor processor,
            MessageHandler handler, FailureCounter failures) {
        return new ConsumerRunner(settings, m -> processor.process(settings.name(), m, handler), failures);
    }

    /**
     * The effect is a call outside the database: it is made at most once. The dedupe record and a
     * {@code PENDING} side-effect row commit before the call; a failed or interrupted call is not
     * repeated, its row stays {@code PENDING} for repair and the message id is logged.
     */
    public static ConsumerRunner atMostOnce(ConsumerSettings settings, SideEffectGuard guard, String effectName,
            ExternalEffect effect, FailureCounter failures) {
        return new ConsumerRunner(settings, m -> {
            if (!guard.begin(settings.name(), m.messageId(), effectName)) {
                return new IdempotentProcessor.Outcome(IdempotentProcessor.Result.DUPLICATE, 0);
            }
            LOG.info("{}: performing {} for message_id={} (recorded PENDING first)", settings.name(), effectName,
                    m.messageId());
            try {
                effect.perform(m);
            } catch (Exception e) {
                LOG.error("{}: {} for message_id={} failed and will not be repeated (it may have happened);"
                        + " left PENDING in consumer_side_effects for repair", settings.name(), effectName,
                        m.messageId(), e);
                return new IdempotentProcessor.Outcome(IdempotentProcessor.Result.APPLIED, 0);
            }
            guard.done(settings.name(), m.messageId(), effectName);
            return new IdempotentProcessor.Outcome(IdempotentProcessor.Result.APPLIED, 0);
        }, failures);
    }

    /** Starts consuming on {@code connection}; called again with the new connection after a reconnect. */
    public synchronized void start(Connection connection) throws IOException {
        this.connection = connection;
        channels.clear();
        for (int i = 0; i < settings.channels(); i++) {
            Channel ch = connection.createChannel();
            ch.basicQos(settings.prefetch());
            ch.basicConsume(settings.queue(), false, settings.name() + "-" + i, (tag, d) -> onDelivery(ch, d),
                    tag -> LOG.warn("consumer {} was cancelled by the broker on {}", settings.name(), settings.queue()));
            channels.add(ch);
        }
        LOG.info("consumer {} consuming {} on {} channel(s), prefetch {}, dead letters to {}", settings.name(),
                settings.queue(), settings.channels(), settings.prefetch(), settings.deadLetterQueue());
    }

    private void onDelivery(Channel ch, Delivery delivery) throws IOException {
        long tag = delivery.getEnvelope().getDeliveryTag();
        InboundMessage message;
        try {
            message = InboundMessage.parse(delivery);
        } catch (InboundMessage.MalformedMessageException e) {
            deadLetter(ch, delivery, null, "malformed delivery: " + e.getMessage(), 1);
            return;
        }
        MDC.put("message_id", message.messageId());
        MDC.put("aggregate_id", String.valueOf(message.aggregateId()));
        MDC.put("correlation_id", String.valueOf(message.correlationId()));
        try {
            IdempotentProcessor.Outcome outcome = step.run(message);
            ch.basicAck(tag, false);
            count(outcome);
        } catch (NonRetryableMessageException e) {
            deadLetter(ch, delivery, message, e.getMessage(), 1);
        } catch (DataAccessException e) {
            if (e.isTransient()) {
                // the database is away: not the message's fault, do not count it
                LOG.warn("consumer {} cannot reach the database ({}); message_id={} requeued", settings.name(),
                        e.getMessage(), message.messageId());
                pause(settings.retryDelay().multipliedBy(5));
                ch.basicNack(tag, false, true);
            } else {
                failedAttempt(ch, delivery, message, e);
            }
        } catch (Exception e) {
            failedAttempt(ch, delivery, message, e);
        } finally {
            MDC.clear();
        }
    }

    private void failedAttempt(Channel ch, Delivery delivery, InboundMessage message, Exception cause)
            throws IOException {
        failed.increment();
        String reason = cause.getClass().getSimpleName() + ": " + cause.getMessage();
        int attempts;
        try {
            attempts = failures.failed(settings.name(), message.messageId(), reason);
        } catch (DataAccessException e) {
            LOG.warn("consumer {} cannot count the failure of message_id={} ({}); requeued", settings.name(),
                    message.messageId(), e.getMessage());
            pause(settings.retryDelay());
            ch.basicNack(delivery.getEnvelope().getDeliveryTag(), false, true);
            return;
        }
        if (attempts >= settings.maxAttempts()) {
            deadLetter(ch, delivery, message, reason, attempts);
            return;
        }
        LOG.warn("consumer {} failed on message_id={} (attempt {} of {}): {}; requeued", settings.name(),
                message.messageId(), attempts, settings.maxAttempts(), reason, cause);
        pause(settings.retryDelay().multipliedBy(attempts));
        ch.basicNack(delivery.getEnvelope().getDeliveryTag(), false, true);
    }

    private void deadLetter(Channel ch, Delivery delivery, InboundMessage message, String reason, int attempts)
            throws IOException {
        String id = message == null ? delivery.getProperties().getMessageId() : message.messageId();
        ConfirmPublisher.SoloOutcome outcome = DeadLetters.forward(connection, settings.deadLetterQueue(), delivery,
                settings.name(), reason, attempts, settings.confirmTimeout());
        if (!outcome.confirmed()) {
            LOG.error("consumer {} could not dead-letter message_id={} ({} {}); requeued", settings.name(), id,
                    outcome.failure(), outcome.detail());
            pause(settings.retryDelay());
            ch.basicNack(delivery.getEnvelope().getDeliveryTag(), false, true);
            return;
        }
        if (id != null) {
            try {
                failures.deadLettered(settings.name(), id, reason);
            } catch (DataAccessException e) {
                LOG.warn("dead-lettering of message_id={} not recorded in consumer_failures: {}", id, e.getMessage());
            }
        }
        ch.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
        deadLettered.increment();
        LOG.error("consumer {} dead-lettered message_id={} to {} after {} attempt(s): {}", settings.name(), id,
                settings.deadLetterQueue(), attempts, reason);
    }

    private void count(IdempotentProcessor.Outcome outcome) {
        switch (outcome.result()) {
            case APPLIED -> applied.increment();
            case DUPLICATE -> duplicates.increment();
            case HELD -> held.increment();
            case STALE -> stale.increment();
            default -> throw new IllegalStateException(outcome.result().name());
        }
        heldApplied.add(outcome.heldApplied());
    }

    private static void pause(Duration d) {
        if (d.isZero()) {
            return;
        }
        try {
            // a requeued message comes straight back: without a pause a failure becomes a hot loop
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public ConsumerSettings settings() {
        return settings;
    }

    /** Messages whose effect was applied when they arrived. */
    public long applied() {
        return applied.sum();
    }

    /** Held messages applied later, when their predecessor arrived. */
    public long heldApplied() {
        return heldApplied.sum();
    }

    public long duplicates() {
        return duplicates.sum();
    }

    public long held() {
        return held.sum();
    }

    public long stale() {
        return stale.sum();
    }

    public long failures() {
        return failed.sum();
    }

    public long deadLettered() {
        return deadLettered.sum();
    }

    @Override
    public synchronized void close() {
        for (Channel ch : channels) {
            try {
                if (ch.isOpen()) {
                    ch.close();
                }
            } catch (IOException | TimeoutException | RuntimeException e) {
                LOG.debug("closing consumer channel", e);
            }
        }
        channels.clear();
    }
}
