package dev.outbox.api.ops;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.consumer.PendingSideEffect;
import dev.outbox.persistence.ops.AuditEntry;
import dev.outbox.persistence.ops.Reconciliation;
import dev.outbox.persistence.relay.RelayView;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** What the operator endpoints answer with. */
public final class OpsViews {
    private OpsViews() {}

    /**
     * One outbox row. The payload is shown to the operator role only; the read-only role sees its
     * size and SHA-256, enough to compare without copying possibly personal data further.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Row(
            UUID id,
            String aggregateType,
            String aggregateId,
            Long aggregateVersion,
            String messageType,
            int messageVersion,
            String exchange,
            String routingKey,
            String status,
            int attemptCount,
            Instant nextAttemptAt,
            String lastErrorCode,
            String lastErrorMessage,
            Instant createdAt,
            Instant publishedAt,
            String correlationId,
            String causationId,
            String traceId,
            String tenantId,
            Lease lease,
            JsonNode payload,
            Integer payloadBytes,
            String payloadSha256,
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
    public record Lease(String lockedBy, Instant lockedAt, Long leaseToken, Instant expiresAt) {}

    /** The earlier version of the aggregate that holds a row back. */
    public record Blocker(UUID id, Long aggregateVersion, String status, String lastErrorCode) {}

    public record Page(List<Row> items, String next) {}

    public record BulkRetryRequest(
            String status,
            String errorCode,
            String messageType,
            Instant createdFrom,
            Instant createdTo,
            Boolean dryRun,
            Integer limit,
            String reason) {}

    /** {@code audit}: the entry this retry wrote (none for a dry run), so the caller shows its own. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record BulkRetryResult(
            boolean dryRun, long matched, int retried, List<UUID> ids, long remaining, Audit audit) {}

    public record ReasonRequest(String reason) {}

    public record ReplayAggregateRequest(String aggregateType, String aggregateId, String reason) {}

    /** {@code audit}: the entry this action wrote, so the caller shows its own and not the latest. */
    public record ActionResult(String action, int affected, List<UUID> ids, Audit audit) {}

    /**
     * {@code counts}: the unfinished statuses, exact. {@code finished}: {@code PUBLISHED} and
     * {@code CANCELLED}, exact up to {@link OpsService#EXACT_FINISHED_UP_TO} rows and estimated above.
     * {@code publishedPerMinute}: the last hour, oldest minute first, the current minute last.
     */
    public record Stats(
            Map<String, Long> counts,
            Map<String, FinishedCount> finished,
            long publishedLastHour,
            List<Long> publishedPerMinute,
            double oldestPendingAgeSeconds,
            Map<String, Long> parkedByErrorCode,
            long blockedAggregates) {}

    /**
     * Rows in a finished status. {@code exact}: counted one by one. Otherwise more than {@code upTo}
     * rows were found, and {@code count} is PostgreSQL's estimate of the status's partial index
     * (statistics of the last VACUUM or ANALYZE), never less than the rows actually found.
     */
    public record FinishedCount(long count, boolean exact) {
        static FinishedCount of(long counted, long estimate, int upTo) {
            return counted <= upTo
                    ? new FinishedCount(counted, true)
                    : new FinishedCount(Math.max(estimate, counted), false);
        }
    }

    public record Audit(
            Long id,
            Instant at,
            String actor,
            String role,
            String action,
            List<UUID> messageIds,
            JsonNode filter,
            String reason,
            int affected) {
        static Audit of(AuditEntry e) {
            return new Audit(
                    e.id(),
                    e.at(),
                    e.actor(),
                    e.role(),
                    e.action(),
                    e.messageIds() == null ? List.of() : List.of(e.messageIds()),
                    e.filter() == null ? null : tree(e.filter()),
                    e.reason(),
                    e.affected());
        }
    }

    public record AuditPage(List<Audit> items, String next) {}

    /**
     * A registered relay. {@code alive}: some session holds its liveness lock now; a dead relay's
     * leased rows are given back within seconds by any live one ({@code STALE_LOCK}, or {@code
     * RELAY_DIED} for a row given back before).
     */
    public record Relay(
            String relayId,
            boolean alive,
            String host,
            Long pid,
            Integer databaseBackendPid,
            Instant startedAt,
            Instant heartbeatAt,
            Instant registeredAt,
            long inProgress,
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
    public record Session(String role, boolean canWrite, String actor) {}

    public record Relays(long live, List<Relay> items) {
        static Relays of(List<RelayView> views) {
            List<Relay> items = views.stream().map(Relay::of).toList();
            return new Relays(items.stream().filter(Relay::alive).count(), items);
        }
    }

    public record Reconcile(
            boolean ok,
            List<Reconciliation.OrderMissingEvent> ordersMissingEvents,
            List<Reconciliation.ExpiredLease> expiredLeases,
            List<Reconciliation.BlockedAggregate> blockedAggregates,
            List<Reconciliation.WaitingConsumer> waitingConsumers,
            List<PendingSideEffect> pendingSideEffects) {}

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
