package dev.outbox.api.orders;

import io.swagger.v3.oas.annotations.media.Schema;

/** {@code POST /orders/{id}/capture}: the amount must equal the order total. */
public record CaptureRequest(
        @Schema(
                description = "Must equal the order total.",
                requiredMode = Schema.RequiredMode.REQUIRED,
                pattern = "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$")
        String amount) {}
