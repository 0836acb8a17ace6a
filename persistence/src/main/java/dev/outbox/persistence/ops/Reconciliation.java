package dev.outbox.persistence.ops;

import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.UUID;

/** What the reconciliation check looks for, one record type per finding. */
public final class Reconciliation {
    private Reconciliation() {}

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
}
