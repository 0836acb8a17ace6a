package dev.outbox.domain.event;

import dev.outbox.DomainEvent;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An event of the order aggregate: the order's aggregate type, and a payload that starts with the
 * order's id. Each event type adds its own fields ({@link #putFields}) in its contract's order.
 */
public interface OrderEvent extends DomainEvent {
    /** The aggregate type of every order event. */
    String AGGREGATE_TYPE = "order";

    @Override
    default String aggregateType() {
        return AGGREGATE_TYPE;
    }

    /** The payload's fields after {@code orderId}, in the order the contract lists them. */
    void putFields(Map<String, Object> payload);

    @Override
    default Map<String, Object> payload() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("orderId", aggregateId().toString());
        putFields(p);
        return p;
    }
}
