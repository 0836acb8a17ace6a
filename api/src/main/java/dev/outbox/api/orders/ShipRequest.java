package dev.outbox.api.orders;

import io.swagger.v3.oas.annotations.media.Schema;

/** {@code POST /orders/{id}/ship}: who carries the captured order, under which tracking number. */
public record ShipRequest(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minLength = 1, maxLength = 100)
        String carrier,

        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minLength = 1, maxLength = 100)
        String trackingNumber) {}
