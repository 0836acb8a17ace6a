package dev.outbox.ops.views;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the operator API shows of the whole outbox: counts by status, cross-checks, the relays,
 * and who is asking ({@code /openapi.json} documents them from these types).
 */
public final class OpsOverviewViews {
    private OpsOverviewViews() {}

    /**
     * {@code counts}: the unfinished statuses, exact, and any status a newer version wrote that this
     * one has no name for, exact, under its own name. {@code finished}: {@code PUBLISHED} and
     * {@code CANCELLED}, exact up to 10,000 rows (the API's {@code OpsService.EXACT_FINISHED_UP_TO})
     * and estimated above.
     * {@code publishedPerMinute}: the last hour, oldest minute first, the current minute last.
     */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Stats(
            @Schema(
                    description =
                            "The unfinished statuses (PENDING, IN_PROGRESS, RETRYABLE_FAILED, PARKED), exact, and any"
                                    + " status this version does not know (a newer version wrote it), exact, under its"
                                    + " own name",
                    requiredMode = Schema.RequiredMode.REQUIRED)
            Map<String, Long> counts,

            @Schema(
                    description =
                            "The finished statuses, most of a long-lived table: each exact up to 10,000 rows, estimated above",
                    requiredMode = Schema.RequiredMode.REQUIRED)
            Map<String, FinishedCount> finished,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long publishedLastHour,

            @ArraySchema(
                    minItems = 60,
                    maxItems = 60,
                    arraySchema =
                            @Schema(
                                    description =
                                            "Rows published in each minute of the last hour, oldest first, the current minute last",
                                    requiredMode = Schema.RequiredMode.REQUIRED))
            List<Long> publishedPerMinute,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            double oldestPendingAgeSeconds,

            @Schema(
                    description = "Parked rows by their error code, any code a newer version wrote included",
                    requiredMode = Schema.RequiredMode.REQUIRED)
            Map<String, Long> parkedByErrorCode,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long blockedAggregates) {}

    /**
     * Rows in a finished status. {@code exact}: counted one by one. Otherwise more than {@code upTo}
     * rows were found, and {@code count} is PostgreSQL's estimate of the status's partial index
     * (statistics of the last VACUUM or ANALYZE), never less than the rows actually found.
     */
    @Schema(
            description =
                    "Rows in a finished status. exact: counted one by one. Otherwise more than 10,000 rows were found and count is PostgreSQL's estimate of the status's partial index (statistics of the last VACUUM or ANALYZE), never less than the rows found.",
            additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record FinishedCount(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, minimum = "0")
            long count,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            boolean exact) {}

    /**
     * A registered relay. {@code alive}: some session holds its liveness lock now; a dead relay's
     * leased rows are given back within seconds by any live one ({@code STALE_LOCK}, or {@code
     * RELAY_DIED} for a row given back before).
     */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Relay(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String relayId,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            boolean alive,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            String host,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"integer", "null"})
            Long pid,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"integer", "null"})
            Integer databaseBackendPid,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            Instant startedAt,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            Instant heartbeatAt,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            Instant registeredAt,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long inProgress,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            Instant oldestLeaseAt) {}

    /** The caller, as the console needs to know it: which controls to show (the API checks again). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Session(
            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    allowableValues = {"operator", "read-only"})
            String role,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            boolean canWrite,

            String actor) {}

    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Relays(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long live,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<Relay> items) {}

    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Reconcile(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            boolean ok,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<OrderMissingEvent> ordersMissingEvents,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<ExpiredLease> expiredLeases,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<BlockedAggregate> blockedAggregates,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<WaitingConsumer> waitingConsumers,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<PendingSideEffect> pendingSideEffects) {}

    /** An order whose latest version has no outbox row: its event was never recorded. */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record OrderMissingEvent(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            UUID orderId,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long orderVersion,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"integer", "null"})
            Long lastOutboxVersion) {}

    /** A row leased for longer than the lease: its relay is gone or stuck. */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record ExpiredLease(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            UUID id,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String messageType,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String lockedBy,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Instant lockedAt,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            int attemptCount) {}

    /**
     * A consumer holding later versions of an aggregate while the version it needs has not come
     * (for example an operator cancelled it): the consumer will wait until someone acts.
     */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record WaitingConsumer(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String consumerName,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String aggregateType,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String aggregateId,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long waitingForVersion,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long held,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Instant heldSince) {}

    /** An aggregate whose pending versions wait behind a parked one. */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record BlockedAggregate(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String aggregateType,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String aggregateId,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            UUID parkedId,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long parkedVersion,

            @Schema(
                    requiredMode = Schema.RequiredMode.REQUIRED,
                    types = {"string", "null"})
            String errorCode,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            long waiting) {}

    /** An external call that was started and never recorded as done: a message to repair by hand. */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record PendingSideEffect(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String consumerName,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String messageId,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            String effect,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            Instant startedAt) {}
}
