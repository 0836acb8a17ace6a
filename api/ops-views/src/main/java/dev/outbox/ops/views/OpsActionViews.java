package dev.outbox.ops.views;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The bodies of the operator API's repairs and what they answer: the request of each action, its
 * result, and the audit entry it wrote ({@code /openapi.json} documents them from these types).
 */
public final class OpsActionViews {
    private OpsActionViews() {}

    @Schema(
            description =
                    "Name at least one of errorCode, messageType, createdFrom, createdTo. A field that is null is absent.")
    public record BulkRetryRequest(
            @Schema(
                    allowableValues = {"PARKED", "RETRYABLE_FAILED"},
                    types = {"string", "null"})
            String status,

            @Schema(types = {"string", "null"}) String errorCode,

            @Schema(types = {"string", "null"}) String messageType,

            @Schema(
                    description = "An ISO-8601 date-time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.",
                    types = {"string", "null"})
            Instant createdFrom,

            @Schema(
                    description = "An ISO-8601 date-time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.",
                    types = {"string", "null"})
            Instant createdTo,

            @Schema(
                    description =
                            "true: count only, change nothing. A JSON boolean only: \"\", 0, -1 or \"true\" is 400.",
                    types = {"boolean", "null"})
            Boolean dryRun,

            @Schema(
                    types = {"integer", "null"},
                    minimum = "1",
                    maximum = "1000",
                    defaultValue = "500")
            Integer limit,

            @Schema(types = {"string", "null"}) String reason) {}

    /** {@code audit}: the entry this retry wrote (none for a dry run), so the caller shows its own. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(
            description =
                    "matched: rows matching the filter when the retry ran; retried: the rows it made due now, counted in the same statement, so never more than matched (nor than limit); remaining = matched - retried: rows that still match (beyond the limit, or held by a relay at that moment).",
            additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record BulkRetryResult(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            boolean dryRun,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long matched,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int retried,

            List<UUID> ids,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long remaining,

            @Schema(description = "The audit entry this retry wrote; absent on a dry run")
            Audit audit) {}

    public record ReasonRequest(
            @Schema(
                    description = "Required to cancel; recorded in the audit log.",
                    types = {"string", "null"})
            String reason) {}

    public record ReplayAggregateRequest(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String aggregateType,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String aggregateId,

            @Schema(types = {"string", "null"}) String reason) {}

    /** {@code audit}: the entry this action wrote, so the caller shows its own and not the latest. */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record ActionResult(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String action,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int affected,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<UUID> ids,

            @Schema(description = "The audit entry this action wrote", requiredMode = Schema.RequiredMode.REQUIRED)
            Audit audit) {}

    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Audit(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Long id,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Instant at,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String actor,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String role,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String action,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<UUID> messageIds,

            @Schema(
                    description = "The bulk filter, for bulk actions; null otherwise.",
                    requiredMode = Schema.RequiredMode.REQUIRED)
            JsonNode filter,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            String reason,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int affected) {}

    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record AuditPage(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<Audit> items,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            String next) {}
}
