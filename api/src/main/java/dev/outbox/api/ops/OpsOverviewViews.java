package dev.outbox.api.ops;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.outbox.persistence.consumer.PendingSideEffect;
import dev.outbox.persistence.ops.Reconciliation;
import dev.outbox.persistence.relay.RelayView;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the operator API shows of the whole outbox: counts by status, cross-checks, the relays,
 * and who is asking ({@code /openapi.json} documents them from these types).
 */
public final class OpsOverviewViews {
    private OpsOverviewViews() {}

    /**
     * {@code counts}: the unfinished statuses, exact. {@code finished}: {@code PUBLISHED} and
     * {@code CANCELLED}, exact up to {@link OpsService#EXACT_FINISHED_UP_TO} rows and estimated above.
     * {@code publishedPerMinute}: the last hour, oldest minute first, the current minute last.
     */
    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Stats(
            @Schema(
                    description = "The unfinished statuses (PENDING, IN_PROGRESS, RETRYABLE_FAILED, PARKED), exact",
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

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
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
            boolean exact) {
        static FinishedCount of(long counted, long estimate, int upTo) {
            return counted <= upTo
                    ? new FinishedCount(counted, true)
                    : new FinishedCount(Math.max(estimate, counted), false);
        }
    }

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
            Instant oldestLeaseAt) {
        static Relay of(RelayView v) {
            return new Relay(
                    v.relayId(),
                    v.alive(),
                    v.host(),
                    v.pid(),
                    v.backendPid(),
                    v.startedAt(),
                    v.heartbeatAt(),
                    v.registeredAt(),
                    v.inProgress(),
                    v.oldestLeaseAt());
        }
    }

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
            List<Relay> items) {
        static Relays of(List<RelayView> views) {
            List<Relay> items = views.stream().map(Relay::of).toList();
            return new Relays(items.stream().filter(Relay::alive).count(), items);
        }
    }

    @Schema(additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
    public record Reconcile(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            boolean ok,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<Reconciliation.OrderMissingEvent> ordersMissingEvents,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<Reconciliation.ExpiredLease> expiredLeases,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<Reconciliation.BlockedAggregate> blockedAggregates,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<Reconciliation.WaitingConsumer> waitingConsumers,

            @Schema(requiredMode = Schema.RequiredMode.REQUIRED)
            List<PendingSideEffect> pendingSideEffects) {}
}
