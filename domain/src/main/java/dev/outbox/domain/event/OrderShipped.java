package dev.outbox.domain.event;

import dev.outbox.MessageType;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** {@code order.shipped} v1: the captured order was handed to {@code carrier} under {@code trackingNumber}. */
public record OrderShipped(
        UUID aggregateId, long aggregateVersion, Instant occurredAt, String carrier, String trackingNumber)
        implements OrderEvent {
    public static final MessageType TYPE = new MessageType("order.shipped", 1);

    @Override
    public MessageType type() {
        return TYPE;
    }

    @Override
    public void putFields(Map<String, Object> p) {
        p.put("carrier", carrier);
        p.put("trackingNumber", trackingNumber);
        p.put("shippedAt", occurredAt.toString());
    }
}
