package dev.outbox.persistence.relay;

import dev.outbox.persistence.outbox.OutboxMapper;
import java.util.List;
import org.apache.ibatis.annotations.Param;

/**
 * The relay registry's SQL (in {@code RelayRegistryMapper.xml}, table {@code outbox_relays},
 * migration V7). A relay is alive while some session holds its advisory lock
 * {@code (namespace, lock_key)}; see {@link RelayLock}.
 */
public interface RelayRegistryMapper {

    /**
     * Registered relays, other than {@code self}, that hold {@code IN_PROGRESS} rows, whose lock
     * nobody holds, and whose last heartbeat is older than {@code graceMillis}. Each is tested with {@code pg_try_advisory_xact_lock}, so a dead relay's
     * lock stays taken by the caller's transaction until it commits: an incarnation of that relay
     * that starts meanwhile cannot take its lock and claim rows the caller is about to give back.
     */
    List<String> lockDeadRelays(
            @Param("self") String self, @Param("namespace") int namespace, @Param("graceMillis") long graceMillis);

    /**
     * Tries {@code relayId}'s lock for the caller's transaction: true when taken (no session holds
     * it), false when held, null when the relay id is not registered.
     */
    Boolean lockOwnRegistration(@Param("relayId") String relayId, @Param("namespace") int namespace);

    /** Removes {@code relayId} from the registry. */
    int unregister(@Param("relayId") String relayId);

    /**
     * Gives back, due now and without counting the attempt, up to {@code limit} rows leased by
     * {@code relayIds} ({@code RELAY_DIED}) that are still registered. Rows a concurrent statement
     * holds are skipped. A row given back for the first time goes back as {@code STALE_LOCK},
     * claimable in ordinary batches; one that was given back before (last code {@code STALE_LOCK}
     * or {@code RELAY_DIED}) becomes a suspect ({@code RELAY_DIED}), published later one at a
     * time. Only a suspect that its relay held alone counts the attempt, and is parked once it has
     * used {@code maxAttempts}: a row that kills its relay must not take the whole fleet down in
     * turn, and the healthy rows of a batch that held it must not pay for it.
     */
    List<OutboxMapper.StaleLease> releaseHeldBy(
            @Param("relayIds") String[] relayIds,
            @Param("why") String why,
            @Param("limit") int limit,
            @Param("maxAttempts") int maxAttempts);

    /**
     * Deletes registered relays that are dead (lock free, taken for the transaction), hold no row
     * and were last seen more than {@code olderThanMillis} ago; returns their ids.
     */
    List<String> forgetDead(@Param("namespace") int namespace, @Param("olderThanMillis") long olderThanMillis);

    /** Every registered relay with whether it is alive now and the rows it holds. */
    List<RelayView> list(@Param("namespace") int namespace);

    /** Registered relays whose lock is held now. */
    long countLive(@Param("namespace") int namespace);
}
