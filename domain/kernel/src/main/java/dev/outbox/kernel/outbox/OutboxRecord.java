package dev.outbox.kernel.outbox;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * One row of {@code message_outbox}, as read. {@code payload} and {@code headers} are JSON text.
 *
 * <p>{@code status} and {@code lastErrorCode} are text, as stored: in a rolling upgrade a newer
 * version may write a status or code this version has no constant for (the database checks only
 * its form, {@link Codes#SHAPE}), and reading such a row must neither fail nor drop it. Code that
 * acts on a value asks {@link #is}, {@link #knownStatus()} or {@link #knownErrorCode()}; code that
 * shows or counts one uses the text.
 */
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
        String status,
        int attemptCount,
        Instant nextAttemptAt,
        String lastErrorCode,
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

    /** Whether the row is in status {@code s}; false for a status this version does not know. */
    public boolean is(OutboxStatus s) {
        return s.name().equals(status);
    }

    /** The row's status if this version knows it; empty for a newer version's. */
    public Optional<OutboxStatus> knownStatus() {
        return OutboxStatus.named(status);
    }

    /** The row's last error code if this version knows it; empty for none and for a newer version's. */
    public Optional<ErrorCode> knownErrorCode() {
        return ErrorCode.named(lastErrorCode);
    }

    /** The lease this row was claimed under; only meaningful for {@code IN_PROGRESS} rows. */
    public Lease lease() {
        if (leaseToken == null) {
            throw new IllegalStateException("row " + id + " is " + status + " and holds no lease");
        }
        return new Lease(id, leaseToken);
    }
}
