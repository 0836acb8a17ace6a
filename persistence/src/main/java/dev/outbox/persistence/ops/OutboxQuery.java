package dev.outbox.persistence.ops;

import java.time.Instant;
import java.util.UUID;

/**
 * A search of the outbox: every filter optional, newest first, keyset-paginated by
 * {@code (created_at, id)} (the cursor is the last row of the previous page, never an offset).
 */
public record OutboxQuery(
        String status,
        String messageType,
        String aggregateType,
        String aggregateId,
        String correlationId,
        String tenantId,
        String errorCode,
        Instant createdFrom,
        Instant createdTo,
        Instant afterCreatedAt,
        UUID afterId,
        int limit) {}
