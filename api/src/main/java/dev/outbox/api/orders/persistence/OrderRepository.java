package dev.outbox.api.orders.persistence;

import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.domain.OrderStatus;
import dev.outbox.persistence.ConcurrencyConflictException;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.Currency;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Maps the {@link Order} aggregate to its two tables. It owns no transaction: it joins the
 * caller's, which is the application service's {@code @Transactional} method.
 */
@Singleton
public class OrderRepository {
    private final OrderMapper mapper;

    @Inject
    public OrderRepository(OrderMapper mapper) {
        this.mapper = mapper;
    }

    public void insert(Order order) {
        mapper.insert(toRow(order));
        List<OrderLineRow> lines = new ArrayList<>(order.lines().size());
        for (int i = 0; i < order.lines().size(); i++) {
            OrderLine l = order.lines().get(i);
            lines.add(new OrderLineRow(
                    order.id(), i + 1, l.sku(), l.quantity(), l.unitPrice().amount()));
        }
        mapper.insertLines(lines);
    }

    /**
     * The order, if it belongs to {@code tenantId}. An order is only ever seen by its own tenant:
     * a null tenant is a tenant of its own, matching only orders placed without one, so another
     * tenant's order looks exactly like one that does not exist.
     */
    public Optional<Order> find(UUID id, String tenantId) {
        return Optional.ofNullable(mapper.findById(id, tenantId)).map(this::load);
    }

    /** Like {@link #find}, and locks the order's row for the rest of the transaction. */
    public Optional<Order> findForUpdate(UUID id, String tenantId) {
        return Optional.ofNullable(mapper.findByIdForUpdate(id, tenantId)).map(this::load);
    }

    /**
     * Stores a transition's new state.
     *
     * @throws ConcurrencyConflictException when the stored version moved on (cannot happen after
     *     {@link #findForUpdate}, kept as a second line of defence)
     */
    public void update(Order next, long expectedVersion) {
        if (mapper.update(toRow(next), expectedVersion) != 1) {
            throw new ConcurrencyConflictException(
                    "order " + next.id() + " is no longer at version " + expectedVersion, null);
        }
    }

    private Order load(OrderRow row) {
        Currency currency = Currency.getInstance(row.currency());
        List<OrderLine> lines = new ArrayList<>();
        for (OrderLineRow l : mapper.findLines(row.id())) {
            lines.add(new OrderLine(l.sku(), l.quantity(), Money.of(l.unitPrice(), currency)));
        }
        return new Order(
                row.id(),
                row.customerId(),
                row.tenantId(),
                OrderStatus.valueOf(row.status()),
                row.version(),
                currency,
                lines,
                Money.of(row.total(), currency),
                row.paymentId(),
                row.cancelReason(),
                row.createdAt(),
                row.updatedAt());
    }

    private static OrderRow toRow(Order o) {
        return new OrderRow(
                o.id(),
                o.customerId(),
                o.tenantId(),
                o.status().name(),
                o.version(),
                o.currency().getCurrencyCode(),
                o.total().amount(),
                o.paymentId(),
                o.cancelReason(),
                o.createdAt(),
                o.updatedAt());
    }
}
