package dev.outbox.api.orders;

import io.swagger.v3.oas.annotations.media.Schema;

/** {@code POST /orders/{id}/cancel}. */
public record CancelRequest(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minLength = 1, maxLength = 500)
        String reason) {}
