package dev.outbox.domain.event;

import dev.outbox.MessageType;
import java.time.Instant;
import java.util.UUID;

/** {@code payment.captured} v1: the whole order total was captured under {@code paymentId}. */
public record PaymentCaptured(
        UUID aggregateId, long aggregateVersion, Instant occurredAt, UUID paymentId, String amount, String currency)
        implements PaymentEvent {
    public static final MessageType TYPE = new MessageType("payment.captured", 1);

    @Override
    public MessageType type() {
        return TYPE;
    }

    @Override
    public String occurredAtField() {
        return "capturedAt";
    }
}
