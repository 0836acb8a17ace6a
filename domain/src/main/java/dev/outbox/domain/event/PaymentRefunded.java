package dev.outbox.domain.event;

import dev.outbox.MessageType;
import java.time.Instant;
import java.util.UUID;

/** {@code payment.refunded} v1: the captured payment was refunded in full. */
public record PaymentRefunded(
        UUID aggregateId, long aggregateVersion, Instant occurredAt, UUID paymentId, String amount, String currency)
        implements PaymentEvent {
    public static final MessageType TYPE = new MessageType("payment.refunded", 1);

    @Override
    public MessageType type() {
        return TYPE;
    }

    @Override
    public String occurredAtField() {
        return "refundedAt";
    }
}
