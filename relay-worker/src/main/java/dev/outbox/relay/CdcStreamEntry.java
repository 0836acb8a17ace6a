package dev.outbox.relay;

/**
 * A transaction, or a tick, in stream order: the slot's confirmed position may pass its end only
 * once none of its rows is open any more (every one recorded, or left to the retry path). A tick
 * carries the snapshot xmin and the time it was written ({@link CdcTicks}); a transaction has none.
 */
final class CdcStreamEntry {
    final long endLsn;
    final long tickXmin;
    final long tickMicros;
    /** Rows of this transaction not settled yet (stream thread only). */
    int open;

    CdcStreamEntry(long endLsn, long tickXmin, long tickMicros) {
        this.endLsn = endLsn;
        this.tickXmin = tickXmin;
        this.tickMicros = tickMicros;
    }

    boolean tick() {
        return tickXmin >= 0;
    }
}
