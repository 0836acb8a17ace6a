package dev.outbox.domain.event;

import dev.outbox.MessageType;
import dev.outbox.domain.OrderStatus;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** {@code order.cancelled} v1: the order was cancelled from {@code previousStatus}. */
public record OrderCancelled(
        UUID aggregateId, long aggregateVersion, Instant occurredAt, String reason, OrderStatus previousStatus)
        implements OrderEvent {
    public static final MessageType TYPE = new MessageType("order.cancelled", 1);

    @Override
    public MessageType type() {
        return TYPE;
    }

    @Override
    public void putFields(Map<String, Object> p) {
        p.put("reason", reason);
        p.put("previousStatus", previousStatus.name());
        p.put("cancelledAt", occurredAt.toString());
    }
}
