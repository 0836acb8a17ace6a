package dev.outbox.persistence.cdc;

/**
 * A replication slot as {@code pg_replication_slots} shows it.
 *
 * @param walStatus {@code reserved}, {@code extended}, {@code unreserved} or {@code lost} (PG 13+):
 *     a lost slot was invalidated by {@code max_slot_wal_keep_size} and can no longer be read
 * @param lagBytes WAL written since the slot's confirmed position: what the server keeps for it
 */
public record CdcSlotView(
        String slotName,
        String plugin,
        boolean active,
        Integer activePid,
        String walStatus,
        String confirmedFlushLsn,
        Long lagBytes,
        String database,
        boolean thisDatabase) {

    public boolean lost() {
        return "lost".equals(walStatus);
    }
}
