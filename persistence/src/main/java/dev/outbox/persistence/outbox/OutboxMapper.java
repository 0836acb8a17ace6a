package dev.outbox.persistence.outbox;

import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Param;

/**
 * The outbox's SQL (in {@code OutboxMapper.xml}). Writes are called by an application service
 * inside its business transaction ({@link #insert}); the relay's statements are each one round
 * trip for a whole batch, and every state change of a leased row is fenced by
 * {@code status = 'IN_PROGRESS' AND locked_by = relay AND lease_token = token}. Fenced statements
 * return the ids they changed, so a caller can tell exactly which leases were lost.
 *
 * <p>Never annotate a mapper with {@code @Transactional}: the caller owns the transaction
 * ({@link OutboxStore} for the relay, the application service for business writes).
 */
public interface OutboxMapper {

    @org.apache.ibatis.annotations.Insert(OutboxInsertMapper.INSERT)
    int insert(NewOutboxMessage message);

    /**
     * Leases up to {@code limit} due rows in one statement: {@code UPDATE ... WHERE id IN (SELECT
     * ... FOR UPDATE SKIP LOCKED LIMIT n) RETURNING *}. Rows locked by a concurrent claim are
     * skipped, never waited for, so relays never get the same row.
     *
     * <p>Strict per-aggregate order: a row with an {@code aggregate_version} is claimable only when
     * no earlier version of its aggregate is unfinished (not {@code PUBLISHED} or
     * {@code CANCELLED}), unless its message type is in {@code unorderedTypes}. Because the check
     * is part of the claim, it holds however many relays claim at once.
     *
     * <p>Suspects ({@code last_error_code = 'RELAY_DIED'}) are left to {@link #claimSuspect}. With a
     * {@code livenessNamespace}, nothing is claimed unless the relay's registered liveness session
     * holds its lock now (the claim fence).
     */
    List<OutboxRecord> claimPending(
            @Param("relayId") String relayId,
            @Param("limit") int limit,
            @Param("unorderedTypes") String[] unorderedTypes,
            @Param("livenessNamespace") Integer livenessNamespace,
            @Param("cdcSlot") String cdcSlot);

    /**
     * Leases the oldest due suspect, a row given back because the relay holding it died, in
     * per-aggregate order, but only while {@code relayId} holds no other row; fenced like
     * {@link #claimPending}. Empty when there is none or this relay still holds something.
     */
    List<OutboxRecord> claimSuspect(
            @Param("relayId") String relayId,
            @Param("unorderedTypes") String[] unorderedTypes,
            @Param("livenessNamespace") Integer livenessNamespace);

    /** Whether a suspect is due and next of its aggregate (what {@link #claimSuspect} looks for). */
    boolean hasDueSuspects(@Param("unorderedTypes") String[] unorderedTypes);

    /** Records that {@code relayId} waits for work, so writers' transactions notify (V6). */
    void registerWaiter(@Param("relayId") String relayId);

    /** {@code relayId} is busy again: writers need not notify on its account. */
    void unregisterWaiter(@Param("relayId") String relayId);

    /** Aggregates with a pending version held back by an earlier {@code PARKED} version. */
    long countBlockedAggregates();

    /**
     * An operator's retry: {@code PARKED} or {@code RETRYABLE_FAILED} rows become due now with a
     * fresh attempt budget, same ids; the last error stays for the record.
     */
    List<UUID> retryNow(@Param("ids") UUID[] ids);

    /**
     * The relay's retry of rows parked with {@code code} whose message type and version are one of
     * {@code types[i]} at {@code versions[i]}: due now with a fresh attempt budget, like {@link
     * #retryNow}.
     */
    List<UUID> retryParked(
            @Param("code") String code, @Param("types") String[] types, @Param("versions") Integer[] versions);

    /** Whether any row is parked with {@code code} and one of {@code types}: a read, no lock taken. */
    boolean hasParked(
            @Param("code") String code, @Param("types") String[] types, @Param("versions") Integer[] versions);

    /**
     * Rows parked {@code EXCHANGE_NOT_FOUND} on one of {@code exchanges}, or {@code UNROUTABLE} on
     * an exchange whose routing key one of the bindings ({@code bindingExchanges[i]}, {@code
     * keyRegexes[i]}) matches, due before {@code cutoff} (any when null), made {@code PENDING}
     * with a fresh attempt budget; returns their ids.
     */
    List<UUID> retryRoutable(
            @Param("exchanges") String[] exchanges,
            @Param("bindingExchanges") String[] bindingExchanges,
            @Param("keyRegexes") String[] keyRegexes,
            @Param("cutoff") java.time.Instant cutoff);

    /** Whether {@link #retryRoutable} would change a row: a read, no lock taken. */
    boolean hasRoutableParked(
            @Param("exchanges") String[] exchanges,
            @Param("bindingExchanges") String[] bindingExchanges,
            @Param("keyRegexes") String[] keyRegexes,
            @Param("cutoff") java.time.Instant cutoff);

    /** The database's {@code now()}: the time its current transaction started. */
    java.time.Instant transactionStart();

    /** Confirmed rows become {@code PUBLISHED}. */
    List<UUID> markPublished(
            @Param("relayId") String relayId, @Param("ids") UUID[] ids, @Param("tokens") Long[] tokens);

    /** Failed rows become {@code RETRYABLE_FAILED}, due again after their own delay. */
    List<UUID> markRetryableFailed(
            @Param("relayId") String relayId,
            @Param("ids") UUID[] ids,
            @Param("tokens") Long[] tokens,
            @Param("codes") String[] codes,
            @Param("messages") String[] messages,
            @Param("delaysMillis") Long[] delaysMillis);

    /** Permanently failed rows become {@code PARKED} until an operator acts. */
    List<UUID> markParked(
            @Param("relayId") String relayId,
            @Param("ids") UUID[] ids,
            @Param("tokens") Long[] tokens,
            @Param("codes") String[] codes,
            @Param("messages") String[] messages);

    /**
     * Gives rows back without counting the attempt (they were never sent, or the relay is
     * shutting down): due now, {@code attempt_count - 1}. A non-null {@code code} is recorded as
     * the reason (for example {@code BROKER_UNAVAILABLE}); null keeps the previous error.
     */
    List<UUID> releaseUnsent(
            @Param("relayId") String relayId,
            @Param("ids") UUID[] ids,
            @Param("tokens") Long[] tokens,
            @Param("code") String code,
            @Param("message") String message);

    /**
     * Returns rows whose lease is older than {@code leaseMillis} to retry with
     * {@code STALE_LOCK}, or parks them once they have used {@code maxAttempts}: a row that
     * keeps killing its relay must not loop forever.
     */
    List<StaleLease> releaseStaleLocks(
            @Param("leaseMillis") long leaseMillis, @Param("maxAttempts") int maxAttempts, @Param("limit") int limit);

    OutboxRecord findById(@Param("id") UUID id);

    List<OutboxRecord> findByAggregate(
            @Param("aggregateType") String aggregateType, @Param("aggregateId") String aggregateId);

    /**
     * A stale lease that was released: which row, who held it, and what it became. The status is
     * read as text, as every status is ({@link OutboxRecord#status()}); the statements that return
     * it write only statuses this version knows.
     */
    record StaleLease(UUID id, String lockedBy, String status) {
        /** Whether the row became {@code s}. */
        public boolean is(OutboxStatus s) {
            return s.name().equals(status);
        }
    }
}
