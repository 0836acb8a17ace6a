package dev.outbox.relay;

import dev.outbox.kernel.outbox.OutboxRecord;

/**
 * A row of the CDC stream and the transaction it came in: what the stream sends, what the broker's
 * outcome is about, and what settles (decrements) its transaction's open count once its outcome is
 * recorded or it is left to the retry path.
 */
final class CdcRow {
    final OutboxRecord record;
    final CdcStreamEntry txn;

    CdcRow(OutboxRecord record, CdcStreamEntry txn) {
        this.record = record;
        this.txn = txn;
    }

    /** The row's aggregate: versions of one key take their turn in commit order. */
    String key() {
        return record.aggregateType() + "\u0000" + record.aggregateId();
    }
}
