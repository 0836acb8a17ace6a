package dev.outbox.persistence.ops;

import java.util.UUID;

/**
 * What one bulk retry statement saw and did: {@code matched} rows matched the filter when it ran,
 * {@code ids} are the ones it made due now (never more than matched, never more than its limit).
 */
public record BulkRetryOutcome(long matched, UUID[] ids) {}
