package dev.outbox.persistence.ops;

import java.time.Instant;

/**
 * Which failed rows a bulk retry takes: {@code PARKED} and {@code RETRYABLE_FAILED} rows
 * (or only one of them), narrowed by error code, message type and creation time.
 */
public record BulkRetryFilter(
        String status, String errorCode, String messageType, Instant createdFrom, Instant createdTo) {}
