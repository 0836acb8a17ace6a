package dev.outbox.domain.event;

import dev.outbox.MessageType;
import dev.outbox.domain.OrderLine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** {@code order.created} v1: a full snapshot of the order as placed. */
public record OrderCreated(
        UUID aggregateId,
        long aggregateVersion,
        Instant occurredAt,
        String customerId,
        String tenantId,
        String currency,
        String total,
        List<Map<String, Object>> lines)
        implements OrderEvent {
    public static final MessageType TYPE = new MessageType("order.created", 1);

    /** The order's lines as the payload lists them: SKU, quantity and unit price as decimal text. */
    public static List<Map<String, Object>> lines(List<OrderLine> orderLines) {
        List<Map<String, Object>> out = new ArrayList<>(orderLines.size());
        for (OrderLine line : orderLines) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("sku", line.sku());
            m.put("quantity", line.quantity());
            m.put("unitPrice", line.unitPrice().toDecimalString());
            out.add(m);
        }
        return List.copyOf(out);
    }

    @Override
    public MessageType type() {
        return TYPE;
    }

    @Override
    public void putFields(Map<String, Object> p) {
        p.put("customerId", customerId);
        if (tenantId != null) {
            p.put("tenantId", tenantId);
        }
        p.put("currency", currency);
        p.put("total", total);
        p.put("lines", lines);
        p.put("placedAt", occurredAt.toString());
    }
}
