package dev.outbox.persistence.ops;

import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.consumer.PendingSideEffect;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Param;

/**
 * The operators' SQL (in {@code OpsMapper.xml}). Every value is a bound parameter; filters are
 * added with MyBatis dynamic SQL, never by pasting text. Repairs are single statements guarded by
 * the status they may change, and return the ids they changed.
 */
public interface OpsMapper {

    List<OutboxRecord> search(OutboxQuery query);

    /** The earliest unfinished earlier version of the row's aggregate: what holds it back, if anything. */
    OutboxRecord blockingVersion(@Param("id") UUID id);

    /**
     * Retries up to {@code limit} rows matching the filter (0: a dry run) and counts the matching
     * rows, in one statement: the count and the rows retried come from the same snapshot.
     */
    BulkRetryOutcome bulkRetry(@Param("filter") BulkRetryFilter filter, @Param("limit") int limit);

    List<UUID> cancel(@Param("id") UUID id, @Param("reason") String reason);

    List<UUID> replay(@Param("id") UUID id);

    List<UUID> replayAggregate(@Param("aggregateType") String aggregateType, @Param("aggregateId") String aggregateId);

    List<UUID> releaseLease(@Param("id") UUID id, @Param("reason") String reason);

    OutboxStats stats();

    /** Parked rows per error code, as stored: a code this version does not know is counted under its own name. */
    List<CodeCount> parkedByErrorCode();

    /**
     * Rows per status for the statuses this version does not know (a newer version's, in a rolling
     * upgrade), each under its own name; empty while there are none. Read through a partial index
     * that holds only such rows (V16).
     */
    List<CodeCount> unknownStatusCounts();

    /** Published rows per minute of the last hour; minutes with none are absent. */
    List<MinuteCount> publishedPerMinute();

    /**
     * Published and cancelled rows, each counted up to {@code limit} through its partial index, with
     * PostgreSQL's estimate of each index's entries for when a count reaches the limit.
     */
    FinishedCounts finishedCounts(@Param("limit") int limit);

    void audit(AuditEntry entry);

    /**
     * The entry this session's last {@link #audit} wrote, as stored. The identity's {@code currval} is
     * the session's own, so an entry another operator wrote in the meantime is never the one returned.
     */
    AuditEntry auditWritten();

    List<AuditEntry> auditLog(
            @Param("beforeId") Long beforeId, @Param("messageId") UUID messageId, @Param("limit") int limit);

    List<Reconciliation.ExpiredLease> expiredLeases(@Param("leaseMillis") long leaseMillis, @Param("limit") int limit);

    List<Reconciliation.BlockedAggregate> blockedAggregates(@Param("limit") int limit);

    List<Reconciliation.WaitingConsumer> waitingConsumers(
            @Param("olderThanMillis") long olderThanMillis, @Param("limit") int limit);

    List<PendingSideEffect> pendingSideEffects(
            @Param("olderThanMillis") long olderThanMillis, @Param("limit") int limit);
}
