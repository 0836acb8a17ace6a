package dev.outbox.domain.event;

import dev.outbox.MessageType;
import dev.outbox.domain.Order;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** {@code order.shipped} v1: the captured order was handed to {@code carrier} under {@code trackingNumber}. */
public record OrderShipped(
        UUID aggregateId, long aggregateVersion, Instant occurredAt, String carrier, String trackingNumber)
        implements OrderEvent {
    public static final MessageType TYPE = new MessageType("order.shipped", 1);

    public OrderShipped(Order shipped, String carrier, String trackingNumber, Instant at) {
        this(shipped.id(), shipped.version(), at, carrier, trackingNumber);
    }

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
