package dev.outbox.domain.event;

import dev.outbox.MessageType;
import dev.outbox.domain.Order;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** {@code payment.refunded} v1: the captured payment was refunded in full. */
public record PaymentRefunded(
        UUID aggregateId, long aggregateVersion, Instant occurredAt, UUID paymentId, String amount, String currency)
        implements OrderEvent {
    public static final MessageType TYPE = new MessageType("payment.refunded", 1);

    public PaymentRefunded(Order order, Instant at) {
        this(
                order.id(),
                order.version(),
                at,
                order.paymentId(),
                order.total().toDecimalString(),
                order.currency().getCurrencyCode());
    }

    @Override
    public MessageType type() {
        return TYPE;
    }

    @Override
    public void putFields(Map<String, Object> p) {
        p.put("paymentId", paymentId.toString());
        p.put("amount", amount);
        p.put("currency", currency);
        p.put("refundedAt", occurredAt.toString());
    }
}
