package dev.outbox.api.ops;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.ops.views.OpsActionViews;
import dev.outbox.ops.views.OpsOverviewViews;
import dev.outbox.ops.views.OpsViews;
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

/**
 * The operator views of what the database holds. The views are shapes shared with outboxctl
 * ({@code outbox-ops-views}), which must not carry MyBatis rows or the kernel: what the API
 * decides in building them (who sees a payload, when a count is exact) stays here. A status or
 * error code goes out as stored, one this version does not know included: a newer version running
 * beside it may have written it, and an operator must see it as it is.
 */
final class StoredViews {
    private StoredViews() {}

    /**
     * The payload goes to the operator role only; the read-only role gets its size and SHA-256,
     * enough to compare without copying possibly personal data further.
     */
    static OpsViews.Row row(OutboxRecord r, boolean withPayload, Instant leaseExpiresAt, OpsViews.Blocker blockedBy) {
        byte[] payload = r.payload().getBytes(StandardCharsets.UTF_8);
        return new OpsViews.Row(
                r.id(),
                r.aggregateType(),
                r.aggregateId(),
                r.aggregateVersion(),
                r.messageType(),
                r.messageVersion(),
                r.exchangeName(),
                r.routingKey(),
                r.status(),
                r.attemptCount(),
                r.nextAttemptAt(),
                r.lastErrorCode(),
                r.lastErrorMessage(),
                r.createdAt(),
                r.publishedAt(),
                r.correlationId(),
                r.causationId(),
                r.traceId(),
                r.tenantId(),
                r.lockedBy() == null
                        ? null
                        : new OpsViews.Lease(r.lockedBy(), r.lockedAt(), r.leaseToken(), leaseExpiresAt),
                withPayload ? tree(r.payload()) : null,
                withPayload ? null : payload.length,
                withPayload ? null : sha256(payload),
                tree(r.headers()),
                blockedBy);
    }

    /** Counted one by one up to {@code upTo}; above it, the estimate, never less than what was counted. */
    static OpsOverviewViews.FinishedCount finishedCount(long counted, long estimate, int upTo) {
        return counted <= upTo
                ? new OpsOverviewViews.FinishedCount(counted, true)
                : new OpsOverviewViews.FinishedCount(Math.max(estimate, counted), false);
    }

    static OpsOverviewViews.Relays relays(List<RelayView> views) {
        List<OpsOverviewViews.Relay> items = views.stream()
                .map(v -> new OpsOverviewViews.Relay(
                        v.relayId(),
                        v.alive(),
                        v.host(),
                        v.pid(),
                        v.backendPid(),
                        v.startedAt(),
                        v.heartbeatAt(),
                        v.registeredAt(),
                        v.inProgress(),
                        v.oldestLeaseAt()))
                .toList();
        return new OpsOverviewViews.Relays(
                items.stream().filter(OpsOverviewViews.Relay::alive).count(), items);
    }

    static OpsActionViews.Audit audit(AuditEntry e) {
        return new OpsActionViews.Audit(
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

    static OpsOverviewViews.Reconcile reconcile(
            List<Reconciliation.OrderMissingEvent> missing,
            List<Reconciliation.ExpiredLease> expired,
            List<Reconciliation.BlockedAggregate> blocked,
            List<Reconciliation.WaitingConsumer> waiting,
            List<PendingSideEffect> sideEffects) {
        return new OpsOverviewViews.Reconcile(
                missing.isEmpty()
                        && expired.isEmpty()
                        && blocked.isEmpty()
                        && waiting.isEmpty()
                        && sideEffects.isEmpty(),
                missing.stream()
                        .map(m -> new OpsOverviewViews.OrderMissingEvent(
                                m.orderId(), m.orderVersion(), m.lastOutboxVersion()))
                        .toList(),
                expired.stream()
                        .map(e -> new OpsOverviewViews.ExpiredLease(
                                e.id(), e.messageType(), e.lockedBy(), e.lockedAt(), e.attemptCount()))
                        .toList(),
                blocked.stream()
                        .map(b -> new OpsOverviewViews.BlockedAggregate(
                                b.aggregateType(),
                                b.aggregateId(),
                                b.parkedId(),
                                b.parkedVersion(),
                                b.errorCode(),
                                b.waiting()))
                        .toList(),
                waiting.stream()
                        .map(w -> new OpsOverviewViews.WaitingConsumer(
                                w.consumerName(),
                                w.aggregateType(),
                                w.aggregateId(),
                                w.waitingForVersion(),
                                w.held(),
                                w.heldSince()))
                        .toList(),
                sideEffects.stream()
                        .map(s -> new OpsOverviewViews.PendingSideEffect(
                                s.consumerName(), s.messageId(), s.effect(), s.startedAt()))
                        .toList());
    }

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
