package dev.outbox.api.orders;

import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/** {@code POST /orders}: money is a decimal string in {@code currency}. */
public record PlaceOrderRequest(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minLength = 1, maxLength = 128)
        String customerId,

        @Schema(description = "ISO 4217", requiredMode = Schema.RequiredMode.REQUIRED, pattern = "^[A-Z]{3}$")
        String currency,

        @ArraySchema(minItems = 1, maxItems = 100, arraySchema = @Schema(requiredMode = Schema.RequiredMode.REQUIRED))
        List<Line> lines) {
    @Schema(name = "PlaceOrderLine")
    public record Line(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
            String sku,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "1")
            Integer quantity,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$")
            String unitPrice) {}
}
