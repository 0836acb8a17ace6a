package dev.outbox.api.ops;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import io.swagger.v3.oas.annotations.media.Schema;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/** What the operator endpoints answer with. */
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

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, implementation = OutboxStatus.class)
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

            Blocker blockedBy) {

        static Row of(OutboxRecord r, boolean withPayload, Instant leaseExpiresAt, Blocker blockedBy) {
            byte[] payload = r.payload().getBytes(StandardCharsets.UTF_8);
            return new Row(
                    r.id(),
                    r.aggregateType(),
                    r.aggregateId(),
                    r.aggregateVersion(),
                    r.messageType(),
                    r.messageVersion(),
                    r.exchangeName(),
                    r.routingKey(),
                    r.status().name(),
                    r.attemptCount(),
                    r.nextAttemptAt(),
                    r.lastErrorCode() == null ? null : r.lastErrorCode().name(),
                    r.lastErrorMessage(),
                    r.createdAt(),
                    r.publishedAt(),
                    r.correlationId(),
                    r.causationId(),
                    r.traceId(),
                    r.tenantId(),
                    r.lockedBy() == null ? null : new Lease(r.lockedBy(), r.lockedAt(), r.leaseToken(), leaseExpiresAt),
                    withPayload ? tree(r.payload()) : null,
                    withPayload ? null : payload.length,
                    withPayload ? null : sha256(payload),
                    tree(r.headers()),
                    blockedBy);
        }
    }

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

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, implementation = OutboxStatus.class)
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

    static JsonNode tree(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (JsonProcessingException e) {
            // a row written by another SQL client may hold anything: show it as a string
            return Json.mapper().getNodeFactory().textNode(json);
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
