package dev.outbox.ops.views;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What the operator endpoints answer with about rows. The API builds them from its stored rows;
 * outboxctl reads them back. A status or error code is text as stored: usually the name of the
 * kernel's {@code OutboxStatus} or {@code ErrorCode}, but possibly one a newer version wrote
 * during a rolling upgrade, shown as it is. This module carries no kernel (the API's {@code
 * OpenApiDocument} gives the stored shape and lists the names it knows), and a CLI older than the
 * server still reads a name the server added.
 */
public final class OpsViews {
    private OpsViews() {}

    /**
     * One outbox row. The payload is shown to the operator role only; the read-only role sees its
     * size and SHA-256, enough to compare without copying possibly personal data further.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(
            name = "OutboxRow",
            description = "One outbox row; absent fields are unset.",
            additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Row(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            UUID id,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String aggregateType,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String aggregateId,

            Long aggregateVersion,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String messageType,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int messageVersion,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String exchange,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String routingKey,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String status,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int attemptCount,

            Instant nextAttemptAt,
            String lastErrorCode,
            String lastErrorMessage,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Instant createdAt,

            Instant publishedAt,
            String correlationId,
            String causationId,
            String traceId,
            String tenantId,
            Lease lease,

            @Schema(description = "The stored payload: operator token only.")
            JsonNode payload,

            @Schema(description = "Read-only token: the payload's size instead of it.")
            Integer payloadBytes,

            @Schema(description = "Read-only token: the payload's SHA-256 instead of it.", pattern = "^[0-9a-f]{64}$")
            String payloadSha256,

            @Schema(description = "The row's extra AMQP headers (JSON).")
            JsonNode headers,

            Blocker blockedBy) {}

    /** Who holds a row and until when. */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Lease(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String lockedBy,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Instant lockedAt,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Long leaseToken,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            Instant expiresAt) {}

    /** The earlier version of the aggregate that holds a row back. */
    @Schema(
            description = "The earlier version of the aggregate holding this row back.",
            additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Blocker(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            UUID id,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"integer", "null"})
            Long aggregateVersion,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String status,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            String lastErrorCode) {}

    @Schema(name = "OutboxPage", additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Page(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<Row> items,

            @Schema(
                    description = "Pass as after= for the next page; null on the last.",
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            String next) {}
}
