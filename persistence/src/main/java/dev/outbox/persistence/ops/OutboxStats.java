package dev.outbox.persistence.ops;

/**
 * The outbox's health in numbers. Counts of the active statuses are exact and read through
 * partial indexes; published history is only counted over the last hour (an index range), so
 * the query stays cheap however long retention keeps rows.
 */
public record OutboxStats(
        long pending,
        long inProgress,
        long retryableFailed,
        long parked,
        long publishedLastHour,
        double oldestPendingAgeSeconds,
        long blockedAggregates) {}
