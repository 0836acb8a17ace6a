package dev.outbox.persistence.order;

import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Param;

/** SQL for {@code orders} and {@code order_lines} (in {@code OrderMapper.xml}). */
public interface OrderMapper {
    int insert(OrderRow order);

    int insertLines(@Param("lines") List<OrderLineRow> lines);

    OrderRow findById(@Param("id") UUID id);

    /** Reads the row and locks it until the transaction ends, serialising commands on one order. */
    OrderRow findByIdForUpdate(@Param("id") UUID id);

    List<OrderLineRow> findLines(@Param("orderId") UUID orderId);

    /**
     * Writes the new state only if the stored version is still {@code expectedVersion}.
     *
     * @return 1, or 0 when another transaction changed the order first
     */
    int update(@Param("order") OrderRow order, @Param("expectedVersion") long expectedVersion);
}
