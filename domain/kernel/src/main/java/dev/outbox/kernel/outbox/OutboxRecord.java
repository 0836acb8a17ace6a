package dev.outbox.kernel.outbox;

import java.time.Instant;
import java.util.UUID;

/** One row of {@code message_outbox}, as read. {@code payload} and {@code headers} are JSON text. */
public record OutboxRecord(
        UUID id,
        String aggregateType,
        String aggregateId,
        Long aggregateVersion,
        String messageType,
        int messageVersion,
        String exchangeName,
        String routingKey,
        String payload,
        String headers,
        OutboxStatus status,
        int attemptCount,
        Instant nextAttemptAt,
        ErrorCode lastErrorCode,
        String lastErrorMessage,
        Instant createdAt,
        Instant lockedAt,
        String lockedBy,
        Long leaseToken,
        Instant publishedAt,
        String correlationId,
        String causationId,
        String traceId,
        String tenantId) {

    /** The lease this row was claimed under; only meaningful for {@code IN_PROGRESS} rows. */
    public Lease lease() {
        if (leaseToken == null) {
            throw new IllegalStateException("row " + id + " is " + status + " and holds no lease");
        }
        return new Lease(id, leaseToken);
    }
}
