package dev.outbox.persistence.ops;

/**
 * Rows in the finished statuses. They are most of a long-lived table, so they are counted through
 * their partial indexes only up to a limit ({@code published}, {@code cancelled}: at most that
 * limit); beyond it the caller falls back to PostgreSQL's own estimate of each partial index's
 * entries ({@code pg_class.reltuples}, as of the last VACUUM or ANALYZE; -1 before the first).
 */
public record FinishedCounts(long published, long cancelled, long publishedEstimate, long cancelledEstimate) {}
