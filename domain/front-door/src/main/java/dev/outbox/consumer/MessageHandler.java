package dev.outbox.consumer;

/**
 * A consumer's effect. It runs inside the transaction that also records the message as
 * processed, so it must only write through MyBatis mappers (which join that transaction) and
 * must not call anything outside the database: see relay-worker/consumer-runtime/README.md, "Writing a consumer" (effects
 * outside the database) for how to do that safely.
 */
@FunctionalInterface
public interface MessageHandler {
    /**
     * Applies the message. Throwing rolls back everything, including the dedupe record, and the
     * message is delivered again.
     */
    void apply(InboundMessage message) throws Exception;
}
