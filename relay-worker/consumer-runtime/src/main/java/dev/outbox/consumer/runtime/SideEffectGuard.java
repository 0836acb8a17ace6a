package dev.outbox.consumer.runtime;

import dev.outbox.persistence.consumer.ConsumerStateMapper;
import dev.outbox.persistence.consumer.ProcessedMessageMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.mybatis.guice.transactional.Transactional;

/**
 * The rule for effects that cannot share the transaction: commit the dedupe record (and a
 * {@code PENDING} side-effect row naming the message) <em>before</em> the external call, mark it
 * {@code DONE} after. A crash after the commit loses that one call rather than repeating it (the
 * redelivery is a duplicate), and the {@code PENDING} row says which message to repair by hand.
 * Prefer the external system's own idempotency key when it has one; this is for when it has not.
 */
@Singleton
public class SideEffectGuard {
    private final ProcessedMessageMapper processed;
    private final ConsumerStateMapper state;

    @Inject
    public SideEffectGuard(ProcessedMessageMapper processed, ConsumerStateMapper state) {
        this.processed = processed;
        this.state = state;
    }

    /** @return false for a duplicate: the call was made, or lost, already */
    @Transactional
    public boolean begin(String consumer, String messageId, String effect) {
        if (processed.insertIfAbsent(consumer, messageId) == 0) {
            return false;
        }
        state.beginSideEffect(consumer, messageId, effect);
        return true;
    }

    @Transactional
    public void done(String consumer, String messageId, String effect) {
        state.completeSideEffect(consumer, messageId, effect);
    }
}
