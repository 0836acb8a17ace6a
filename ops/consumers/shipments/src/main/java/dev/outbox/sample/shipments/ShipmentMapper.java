package dev.outbox.sample.shipments;

import java.time.OffsetDateTime;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** The shipments consumer's table. */
public interface ShipmentMapper {
    /**
     * Records a shipment unless the order has one: an order ships once, so the order id is the
     * business key that dedupes the effect even for two different messages.
     *
     * @return 1 when recorded, 0 when the order already had a shipment
     */
    @Insert("INSERT INTO shipments (order_id, carrier, tracking_number, shipped_at, message_id)"
            + " VALUES (#{orderId}, #{carrier}, #{trackingNumber}, #{shippedAt}, #{messageId})"
            + " ON CONFLICT (order_id) DO NOTHING")
    int insertIfAbsent(
            @Param("orderId") UUID orderId,
            @Param("carrier") String carrier,
            @Param("trackingNumber") String trackingNumber,
            @Param("shippedAt") OffsetDateTime shippedAt,
            @Param("messageId") String messageId);

    @Select("SELECT tracking_number FROM shipments WHERE order_id = #{orderId}")
    String trackingNumberOf(@Param("orderId") UUID orderId);
}
