package dev.outbox.domain.event;

import dev.outbox.domain.Order;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** {@code order.shipped} v1: the captured order was handed to {@code carrier} under {@code trackingNumber}. */
public record OrderShipped(
        UUID aggregateId, long aggregateVersion, Instant occurredAt, String carrier, String trackingNumber)
        implements DomainEvent {
    public static final MessageType TYPE = new MessageType("order.shipped", 1);

    public OrderShipped(Order shipped, String carrier, String trackingNumber, Instant at) {
        this(shipped.id(), shipped.version(), at, carrier, trackingNumber);
    }

    @Override
    public MessageType type() {
        return TYPE;
    }

    @Override
    public String aggregateType() {
        return Order.AGGREGATE_TYPE;
    }

    @Override
    public Map<String, Object> payload() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("orderId", aggregateId.toString());
        p.put("carrier", carrier);
        p.put("trackingNumber", trackingNumber);
        p.put("shippedAt", occurredAt.toString());
        return p;
    }
}
