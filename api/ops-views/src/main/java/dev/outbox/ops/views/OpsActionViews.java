package dev.outbox.ops.views;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The bodies of the operator API's repairs and registration and what they answer: the request of
 * each action, its result, and the audit entry it wrote ({@code /openapi.json} documents them from
 * these types).
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

    /**
     * A registration for a service that runs none of the outbox's code: its contract files and
     * its queue files, each document whole as the file holds it. All of it is registered, or none.
     */
    @Schema(
            description =
                    "A service's contract files and queue files, each whole as the file holds it, for a service that runs none of the outbox's code. Registered in one transaction: all of it, or none. Name at least one contract or queue; an empty list is [].")
    public record RegisterRequest(
            @Schema(
                    description =
                            "Each contract file (contracts/<messageType>/v<version>.schema.json), checked as a process checks the file on its classpath.",
                    requiredMode = Schema.RequiredMode.REQUIRED)
            List<ContractFile> contracts,

            // documented as what the API takes, an object, not as whatever swagger makes of a JsonNode
            @ArraySchema(
                    arraySchema =
                            @Schema(
                                    description =
                                            "Each queue file (topology/<queue>.queue.json), checked as a process checks the file on its classpath, but for the file's name, and stored as sent: \"routingKeys\": \"contracts\" stays unexpanded.",
                                    requiredMode = Schema.RequiredMode.REQUIRED),
                    schema = @Schema(implementation = Object.class))
            List<JsonNode> queues,

            @Schema(types = {"string", "null"}) String reason) {}

    /** One contract file: the type and version its path names, and its document. */
    @Schema(description = "One contract file: the type and version its path names, and the whole file.")
    public record ContractFile(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, pattern = "^[a-z0-9][a-z0-9._-]*$", maxLength = 255)
            String messageType,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "1")
            int version,

            @Schema(
                    description =
                            "The file's JSON Schema (draft-07), x-outbox block included; its $id is urn:outbox:contract:<messageType>:v<version>.",
                    implementation = Object.class,
                    requiredMode = Schema.RequiredMode.REQUIRED)
            JsonNode document) {}

    /**
     * What a registration changed. A contract, once registered, never changes (the same document
     * again is unchanged); a queue declared differently replaces the last declaration.
     */
    @Schema(
            description =
                    "Contracts added, or registered already with the same document; queues added, registered already as declared, or replaced by a different declaration.",
            additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record RegisterResult(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int contractsAdded,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int contractsUnchanged,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int queuesAdded,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int queuesUnchanged,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int queuesReplaced,

            @Schema(
                    description = "The audit entry this registration wrote",
                    requiredMode = Schema.RequiredMode.REQUIRED)
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
                    description =
                            "The bulk filter, for bulk actions; what a registration registered (its contracts and queues); null otherwise.",
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
