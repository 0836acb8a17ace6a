package dev.outbox.api.orders.persistence;

import dev.outbox.persistence.ops.Reconciliation.OrderMissingEvent;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Param;

/** SQL for {@code orders} and {@code order_lines} (in {@code OrderMapper.xml}). */
public interface OrderMapper {
    int insert(OrderRow order);

    int insertLines(@Param("lines") List<OrderLineRow> lines);

    /** The order if it belongs to {@code tenantId}; null matches only an order placed without a tenant. */
    OrderRow findById(@Param("id") UUID id, @Param("tenantId") String tenantId);

    /**
     * Like {@link #findById}, and locks the row until the transaction ends, serialising commands
     * on one order. Another tenant's order is neither returned nor locked.
     */
    OrderRow findByIdForUpdate(@Param("id") UUID id, @Param("tenantId") String tenantId);

    List<OrderLineRow> findLines(@Param("orderId") UUID orderId);

    /**
     * Writes the new state only if the stored version is still {@code expectedVersion}.
     *
     * @return 1, or 0 when another transaction changed the order first
     */
    int update(@Param("order") OrderRow order, @Param("expectedVersion") long expectedVersion);

    /**
     * Orders whose version is not their aggregate's last outbox version: the event of their latest
     * change was never recorded. Oldest change first.
     */
    List<OrderMissingEvent> ordersMissingEvents(@Param("limit") int limit);
}
