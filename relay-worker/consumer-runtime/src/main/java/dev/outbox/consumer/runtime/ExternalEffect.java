package dev.outbox.consumer.runtime;

import dev.outbox.consumer.InboundMessage;

/**
 * A consumer's effect outside the database (send an e-mail, call a payment provider): no
 * transaction can span it and the dedupe record. See {@link SideEffectGuard}.
 */
@FunctionalInterface
public interface ExternalEffect {
    void perform(InboundMessage message) throws Exception;
}
