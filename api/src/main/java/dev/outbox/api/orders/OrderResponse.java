package dev.outbox.api.orders;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.domain.OrderStatus;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** The order as the API shows it; money as decimal strings. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(
        name = "Order",
        description =
                "Absent fields are unset: tenantId without X-Tenant-Id, paymentId before capture, cancelReason unless cancelled.",
        additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record OrderResponse(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) UUID id,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String customerId,
        String tenantId,

        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, implementation = OrderStatus.class)
        String status,

        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "1")
        long version,

        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String currency,

        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$")
        String total,

        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) List<Line> lines,
        UUID paymentId,
        String cancelReason,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Instant createdAt,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Instant updatedAt) {

    @Schema(name = "OrderLine", additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Line(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String sku,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int quantity,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$")
            String unitPrice,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$")
            String lineTotal) {}

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
