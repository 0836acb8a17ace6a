package dev.outbox.api.orders;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** The order as the API shows it; money as decimal strings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OrderResponse(
        UUID id,
        String customerId,
        String tenantId,
        String status,
        long version,
        String currency,
        String total,
        List<Line> lines,
        UUID paymentId,
        String cancelReason,
        Instant createdAt,
        Instant updatedAt) {

    public record Line(String sku, int quantity, String unitPrice, String lineTotal) {}

    public static OrderResponse of(Order o) {
        List<Line> lines = o.lines().stream().map(OrderResponse::line).toList();
        return new OrderResponse(
                o.id(),
                o.customerId(),
                o.tenantId(),
                o.status().name(),
                o.version(),
                o.currency().getCurrencyCode(),
                o.total().toDecimalString(),
                lines,
                o.paymentId(),
                o.cancelReason(),
                o.createdAt(),
                o.updatedAt());
    }

    private static Line line(OrderLine l) {
        return new Line(
                l.sku(),
                l.quantity(),
                l.unitPrice().toDecimalString(),
                l.lineTotal().toDecimalString());
    }
}
