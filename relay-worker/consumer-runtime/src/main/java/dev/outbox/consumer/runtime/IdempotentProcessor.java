package dev.outbox.consumer.runtime;

import dev.outbox.consumer.InboundMessage;
import dev.outbox.consumer.MessageHandler;
import dev.outbox.consumer.NonRetryableMessageException;
import dev.outbox.kernel.json.Json;
import dev.outbox.persistence.consumer.ConsumerStateMapper;
import dev.outbox.persistence.consumer.HeldMessage;
import dev.outbox.persistence.consumer.ProcessedMessageMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Map;
import org.mybatis.guice.transactional.Transactional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer's half of the contract, in one transaction per delivery:
 *
 * <ol>
 *   <li><b>dedupe</b>: insert {@code (consumer, messageId)} into {@code processed_messages}; a
 *       duplicate finds its row and does nothing;
 *   <li><b>ordered apply</b> for messages that carry an {@code aggregate_version}: lock the
 *       consumer's position for the aggregate; the next version is applied; a later version is
 *       held (in a table, so the broker message can be acked); an earlier one is stale and
 *       acknowledged without effect;
 *   <li>the handler's effect, in the same transaction.
 * </ol>
 *
 * Held successors are not applied in that transaction: {@link Outcome#successorHeld} tells the
 * caller that the next version is waiting, and the caller applies it with {@link #applyHeld}, one
 * transaction per held message, so that a held message that fails fails alone and never takes
 * its valid predecessor down with it.
 *
 * The caller acks only after this returns, i.e. after commit. A crash before commit leaves
 * neither record nor effect and the redelivery applies it once; a crash after commit and before
 * the ack makes the redelivery a duplicate, which reports a waiting successor again. The position
 * row's lock makes consumer instances and prefetched deliveries of one aggregate take turns, so
 * this holds with prefetch &gt; 1 and any number of instances.
 */
@Singleton
public class IdempotentProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(IdempotentProcessor.class);

    /** What happened to a message. */
    public enum Result {
        /** Its effect was applied. */
        APPLIED,
        /** Already processed: nothing done. */
        DUPLICATE,
        /** Arrived before its predecessor: kept until that is applied. */
        HELD,
        /** An older version than the one already applied: acknowledged without effect. */
        STALE
    }

    /**
     * The result, and whether the aggregate's next version is held and can be applied now (with
     * {@link #applyHeld}, after this transaction).
     */
    public record Outcome(Result result, boolean successorHeld) {
        public static Outcome of(Result result) {
            return new Outcome(result, false);
        }
    }

    private final ProcessedMessageMapper processed;
    private final ConsumerStateMapper state;

    @Inject
    public IdempotentProcessor(ProcessedMessageMapper processed, ConsumerStateMapper state) {
        this.processed = processed;
        this.state = state;
    }

    @Transactional
    public Outcome process(String consumer, InboundMessage message, MessageHandler handler) throws Exception {
        return process(consumer, message, handler, true);
    }

    /**
     * As {@link #process(String, InboundMessage, MessageHandler)}; with {@code inAggregateOrder}
     * false, a message that carries its aggregate's version is applied as delivered all the same
     * (the consumer's queue binds only some of the aggregate's message types).
     */
    @Transactional
    public Outcome process(String consumer, InboundMessage message, MessageHandler handler, boolean inAggregateOrder)
            throws Exception {
        if (!inAggregateOrder) {
            if (processed.insertIfAbsent(consumer, message.messageId()) == 0) {
                return Outcome.of(Result.DUPLICATE);
            }
            handler.apply(message);
            return Outcome.of(Result.APPLIED);
        }
        if (processed.insertIfAbsent(consumer, message.messageId()) == 0) {
            // a redelivery after a crash between commit and the successors: they still wait
            return new Outcome(
                    Result.DUPLICATE,
                    message.isOrdered()
                            && state.successorHeld(consumer, message.aggregateType(), message.aggregateId()));
        }
        if (!message.isOrdered()) {
            handler.apply(message);
            return Outcome.of(Result.APPLIED);
        }
        String type = message.aggregateType();
        String id = message.aggregateId();
        state.ensurePosition(consumer, type, id);
        long last = state.lockPosition(consumer, type, id);
        long version = message.aggregateVersion();
        DeliveryDecision.Placement placement = DeliveryDecision.placement(version, last);
        if (placement == DeliveryDecision.Placement.STALE) {
            LOG.info(
                    "stale {} v{} of {} {} (already at v{}): acknowledged without effect",
                    message.messageType(),
                    version,
                    type,
                    id,
                    last);
            return new Outcome(Result.STALE, state.successorHeld(consumer, type, id));
        }
        if (placement == DeliveryDecision.Placement.HOLD) {
            if (state.hold(toHeld(consumer, message)) == 0) {
                LOG.warn(
                        "a different message for {} {} v{} is already held; message_id={} changes nothing",
                        type,
                        id,
                        version,
                        message.messageId());
                return new Outcome(Result.STALE, state.successorHeld(consumer, type, id));
            }
            LOG.info(
                    "holding {} v{} of {} {} until v{} is applied", message.messageType(), version, type, id, last + 1);
            return new Outcome(Result.HELD, state.successorHeld(consumer, type, id));
        }
        handler.apply(message);
        state.updatePosition(consumer, type, id, version);
        return new Outcome(Result.APPLIED, state.successorHeld(consumer, type, id));
    }

    /**
     * The held message that can be applied next for the aggregate, or null. A plain read, but
     * {@code @Transactional} all the same: only such methods get their failures translated, and the
     * runner must see an outage here as one (a raw MyBatis exception once dead-lettered a message
     * whose own transaction had already committed).
     */
    @Transactional
    public HeldMessage nextHeld(String consumer, String aggregateType, String aggregateId) {
        return state.nextHeld(consumer, aggregateType, aggregateId);
    }

    /**
     * Applies one held message in a transaction of its own: it leaves the held table and the
     * position advances only if its effect commits; if the handler throws, all of that rolls back
     * and the message stays held.
     *
     * @return false when it was not applied because it is no longer next (another consumer
     *     instance applied or dead-lettered it meanwhile)
     */
    @Transactional
    public boolean applyHeld(String consumer, HeldMessage held, MessageHandler handler) throws Exception {
        long last = state.lockPosition(consumer, held.aggregateType(), held.aggregateId());
        if (DeliveryDecision.placement(held.aggregateVersion(), last) != DeliveryDecision.Placement.APPLY
                || state.takeHeld(
                                consumer,
                                held.aggregateType(),
                                held.aggregateId(),
                                held.aggregateVersion(),
                                held.messageId())
                        == null) {
            return false;
        }
        handler.apply(fromHeld(held));
        state.updatePosition(consumer, held.aggregateType(), held.aggregateId(), held.aggregateVersion());
        LOG.info(
                "applied held {} v{} of {} {}",
                held.messageType(),
                held.aggregateVersion(),
                held.aggregateType(),
                held.aggregateId());
        return true;
    }

    /**
     * Removes a held message that was dead-lettered, and its dedupe record, so that the same
     * message replayed from the dead-letter queue is applied rather than skipped as a duplicate.
     * The aggregate's position does not move: its later versions stay held behind it.
     */
    @Transactional
    public boolean discardHeld(String consumer, HeldMessage held) {
        if (state.takeHeld(
                        consumer, held.aggregateType(), held.aggregateId(), held.aggregateVersion(), held.messageId())
                == null) {
            return false;
        }
        processed.delete(consumer, held.messageId());
        return true;
    }

    private static HeldMessage toHeld(String consumer, InboundMessage m) {
        return new HeldMessage(
                consumer,
                m.aggregateType(),
                m.aggregateId(),
                m.aggregateVersion(),
                m.messageId(),
                m.messageType(),
                m.messageVersion(),
                m.correlationId(),
                Json.write(m.headers()),
                m.body());
    }

    /** The headers a held message was stored with, or null when they cannot be read back. */
    static Map<String, Object> headersOf(HeldMessage h) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> parsed = (Map<String, Object>) Json.parseTree(h.headers());
            return parsed;
        } catch (com.fasterxml.jackson.core.JsonProcessingException | ClassCastException e) {
            return null;
        }
    }

    private static InboundMessage fromHeld(HeldMessage h) throws NonRetryableMessageException {
        Map<String, Object> headers = headersOf(h);
        if (headers == null) {
            throw new NonRetryableMessageException("held message " + h.messageId() + " has unreadable headers");
        }
        return new InboundMessage(
                h.messageId(),
                h.messageType(),
                h.messageVersion(),
                h.aggregateType(),
                h.aggregateId(),
                h.aggregateVersion(),
                h.correlationId(),
                headers,
                h.body(),
                false);
    }
}
