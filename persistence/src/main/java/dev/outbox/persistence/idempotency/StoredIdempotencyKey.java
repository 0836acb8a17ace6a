package dev.outbox.persistence.idempotency;

import java.time.Instant;

/** An idempotency key as stored: the request it was first used for and the response it got. */
public record StoredIdempotencyKey(
        String scope,
        String idempotencyKey,
        String requestHash,
        Integer responseStatus,
        String responseBody,
        String responseLocation,
        Instant createdAt,
        Instant expiresAt) {}
