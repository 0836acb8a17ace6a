package dev.outbox.messaging.consume;

import dev.outbox.persistence.consumer.ConsumerStateMapper;
import dev.outbox.persistence.consumer.HeldMessage;
import dev.outbox.persistence.consumer.ProcessedMessageMapper;
import dev.outbox.persistence.json.Json;
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
 *       consumer's position for the aggregate; the next version is applied, followed by any
 *       held successors in order; a later version is held (in a table, so the broker message can
 *       be acked); an earlier one is stale and acknowledged without effect;
 *   <li>the handler's effect, in the same transaction.
 * </ol>
 *
 * The caller acks only after this returns, i.e. after commit. A crash before commit leaves
 * neither record nor effect and the redelivery applies it once; a crash after commit and before
 * the ack makes the redelivery a duplicate. The position row's lock makes consumer instances and
 * prefetched deliveries of one aggregate take turns, so this holds with prefetch &gt; 1 and any
 * number of instances.
 */
@Singleton
public class IdempotentProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(IdempotentProcessor.class);

    /** What happened to a message. */
    public enum Result {
        /** Its effect was applied (and perhaps that of held successors). */
        APPLIED,
        /** Already processed: nothing done. */
        DUPLICATE,
        /** Arrived before its predecessor: kept until that is applied. */
        HELD,
        /** An older version than the one already applied: acknowledged without effect. */
        STALE
    }

    /** The result, and how many held successors were applied after the message itself. */
    public record Outcome(Result result, int heldApplied) {
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
        if (processed.insertIfAbsent(consumer, message.messageId()) == 0) {
            return new Outcome(Result.DUPLICATE, 0);
        }
        if (!message.isOrdered()) {
            handler.apply(message);
            return new Outcome(Result.APPLIED, 0);
        }
        String type = message.aggregateType();
        String id = message.aggregateId();
        state.ensurePosition(consumer, type, id);
        long last = state.lockPosition(consumer, type, id);
        long version = message.aggregateVersion();
        if (version <= last) {
            LOG.info("stale {} v{} of {} {} (already at v{}): acknowledged without effect", message.messageType(),
                    version, type, id, last);
            return new Outcome(Result.STALE, 0);
        }
        if (version > last + 1) {
            if (state.hold(toHeld(consumer, message)) == 0) {
                LOG.warn("a different message for {} {} v{} is already held; message_id={} changes nothing", type, id,
                        version, message.messageId());
                return new Outcome(Result.STALE, 0);
            }
            LOG.info("holding {} v{} of {} {} until v{} is applied", message.messageType(), version, type, id,
                    last + 1);
            return new Outcome(Result.HELD, 0);
        }
        handler.apply(message);
        last = version;
        int heldApplied = 0;
        HeldMessage next;
        while ((next = state.takeHeld(consumer, type, id, last + 1)) != null) {
            handler.apply(fromHeld(next));
            last++;
            heldApplied++;
        }
        state.updatePosition(consumer, type, id, last);
        return new Outcome(Result.APPLIED, heldApplied);
    }

    private static HeldMessage toHeld(String consumer, InboundMessage m) {
        return new HeldMessage(consumer, m.aggregateType(), m.aggregateId(), m.aggregateVersion(), m.messageId(),
                m.messageType(), m.messageVersion(), m.correlationId(), Json.write(m.headers()), m.body());
    }

    private static InboundMessage fromHeld(HeldMessage h) {
        Map<String, Object> headers;
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> parsed = (Map<String, Object>) Json.parseTree(h.headers());
            headers = parsed;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("held message " + h.messageId() + " has unreadable headers", e);
        }
        return new InboundMessage(h.messageId(), h.messageType(), h.messageVersion(), h.aggregateType(),
                h.aggregateId(), h.aggregateVersion(), h.correlationId(), headers, h.body(), false);
    }
}
