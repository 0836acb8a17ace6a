package dev.outbox.messaging.consume;

import dev.outbox.persistence.consumer.ProcessedMessageMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.mybatis.guice.transactional.Transactional;

/**
 * The consumer's half of the contract: in one transaction, record {@code (consumer, messageId)}
 * and apply the effect. The caller acks only after this returns, i.e. after commit. So a
 * duplicate finds its record and does nothing; a crash before commit leaves neither record nor
 * effect and the redelivery applies it once; a crash after commit but before the ack is a
 * duplicate next time.
 */
@Singleton
public class IdempotentProcessor {
    /** What happened to a message. */
    public enum Result {
        APPLIED,
        DUPLICATE
    }

    private final ProcessedMessageMapper processed;

    @Inject
    public IdempotentProcessor(ProcessedMessageMapper processed) {
        this.processed = processed;
    }

    @Transactional
    public Result process(String consumerName, InboundMessage message, MessageHandler handler) throws Exception {
        if (processed.insertIfAbsent(consumerName, message.messageId()) == 0) {
            return Result.DUPLICATE;
        }
        handler.apply(message);
        return Result.APPLIED;
    }
}
