package dev.outbox.domain;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Objects;

/** One broken input rule: which field (JSON-pointer-like path) and why. */
@Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record Violation(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String field,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String message) {
    public Violation {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
    }
}
