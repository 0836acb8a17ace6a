package dev.outbox.api.orders.persistence;

import dev.outbox.api.ops.MissingEventsCheck;
import dev.outbox.persistence.ops.Reconciliation.OrderMissingEvent;
import jakarta.inject.Inject;
import java.util.List;

/**
 * The order service's check for the reconcile report: an order whose version is not its
 * aggregate's last outbox version ({@code OrderMapper.ordersMissingEvents}). Runs in the caller's
 * transaction.
 */
public final class OrderMissingEvents implements MissingEventsCheck {
    private final OrderMapper orders;

    @Inject
    public OrderMissingEvents(OrderMapper orders) {
        this.orders = orders;
    }

    @Override
    public List<OrderMissingEvent> missingEvents(int limit) {
        return orders.ordersMissingEvents(limit);
    }
}
