package dev.outbox.api.health;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Map;

/**
 * The body of {@code /health/ready}, as {@code /openapi.json} documents it. The process writes it
 * with {@code HealthReport.toJson()} (shared with the relay and the consumers, which have no
 * OpenAPI); {@code OpenApiContractIT} checks every answer against this shape, extra fields
 * included.
 */
@Schema(name = "Health", additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record HealthView(
        @Schema(
                requiredMode = Schema.RequiredMode.REQUIRED,
                allowableValues = {"UP", "DOWN"})
        String status,

        @Schema(description = "Each check's verdict, by name")
        Map<String, String> checks) {}
