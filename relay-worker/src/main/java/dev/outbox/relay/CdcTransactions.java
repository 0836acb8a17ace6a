package dev.outbox.relay;

import dev.outbox.persistence.cdc.CdcStore;
import dev.outbox.relay.cdc.CdcRows;
import dev.outbox.relay.cdc.PgOutput;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC stream's transactions, in stream order: assembles the pgoutput messages into committed
 * transactions and ticks, holds a transaction's rows until its commit and then hands them to the
 * {@link CdcAggregateOrder}, and leaves a transaction of more than {@link
 * CdcConfig#maxTransactionRows} rows whole to the retry path. It owns the transactions and ticks
 * not settled yet, and advances the slot's confirmed position past those settled at the front,
 * saving the position each settled tick stands for: the handover to the retry path. One per
 * stream; stream thread only.
 */
final class CdcTransactions {
    // the relay's log category: these lines are the CDC relay's, as they always were
    private static final Logger LOG = LoggerFactory.getLogger(CdcRelay.class);
    private static final String TABLE = "message_outbox";

    private final CdcConfig config;
    private final RelayConfig relayConfig;
    private final CdcStore store;
    private final CdcCounters counters;
    private final CdcAggregateOrder aggregates;
    private final PGReplicationStream stream;

    private final Map<Integer, CdcRows.Columns> relations = new HashMap<>();
    /** Transactions and ticks, in stream order, until they are settled and the slot passes them. */
    private final ArrayDeque<CdcStreamEntry> order = new ArrayDeque<>();

    /** The transaction being read (a placeholder until its commit), its rows, and how many it had. */
    private CdcStreamEntry txn;

    private final List<CdcRow> rows = new ArrayList<>();
    private int txnRows;

    CdcTransactions(
            CdcConfig config,
            RelayConfig relayConfig,
            CdcStore store,
            CdcCounters counters,
            CdcAggregateOrder aggregates,
            PGReplicationStream stream) {
        this.config = config;
        this.relayConfig = relayConfig;
        this.store = store;
        this.counters = counters;
        this.aggregates = aggregates;
        this.stream = stream;
    }

    /** Takes in the stream's next message; a commit hands its transaction's rows on. */
    void take(PgOutput.Message m) throws InterruptedException, SQLException {
        if (m instanceof PgOutput.Begin) {
            txn = new CdcStreamEntry(-1, -1, 0); // a placeholder: the rows get the commit's entry
            rows.clear();
            txnRows = 0;
        } else if (m instanceof PgOutput.Relation rel) {
            relations.put(rel.id(), TABLE.equals(rel.name()) ? new CdcRows.Columns(rel.columns()) : null);
        } else if (m instanceof PgOutput.Insert ins) {
            CdcRows.Columns columns = relations.get(ins.relationId());
            if (columns != null && txn != null) {
                txnRows++;
                if (txnRows <= config.maxTransactionRows()) {
                    rows.add(new CdcRow(CdcRows.toRecord(columns, ins.values()), txn));
                } else {
                    rows.clear(); // too many to hold: the whole transaction goes to the retry path
                }
            }
        } else if (m instanceof PgOutput.Commit c && txnRows > config.maxTransactionRows()) {
            CdcStreamEntry done = new CdcStreamEntry(c.endLsn(), -1, 0);
            order.add(done); // nothing open: its rows are the retry path's from the next tick on
            counters.streamed.addAndGet(txnRows);
            counters.leftToRetryPath.addAndGet(txnRows);
            aggregates.distrustInFlight();
            LOG.info(
                    "a transaction of {} rows (more than OUTBOX_RELAY_CDC_MAX_TRANSACTION_ROWS = {}) is left"
                            + " to the retry path, which publishes it by polling",
                    txnRows,
                    config.maxTransactionRows());
            rows.clear();
            txn = null;
            txnRows = 0;
        } else if (m instanceof PgOutput.Commit c) {
            CdcStreamEntry done = new CdcStreamEntry(c.endLsn(), -1, 0);
            List<CdcRow> mine = new ArrayList<>(rows.size());
            for (CdcRow row : rows) {
                mine.add(new CdcRow(row.record, done));
            }
            rows.clear();
            txn = null;
            order.add(done);
            done.open = mine.size();
            aggregates.admit(mine);
        } else if (m instanceof PgOutput.LogicalMessage lm && CdcConfig.TICK_PREFIX.equals(lm.prefix())) {
            String[] parts = lm.content().split(" ");
            order.add(new CdcStreamEntry(lm.lsn(), Long.parseLong(parts[0]), Long.parseLong(parts[1])));
        }
    }

    /** Advances the slot past every settled transaction at the front; records settled ticks. */
    void advance() {
        long flushTo = -1;
        while (!order.isEmpty() && order.peek().open == 0) {
            CdcStreamEntry e = order.poll();
            if (e.tick()) {
                store.savePosition(
                        config.slot(),
                        relayConfig.relayId(),
                        e.tickXmin,
                        LogSequenceNumber.valueOf(e.endLsn).asString(),
                        e.tickMicros);
                counters.lagSeconds = Math.max(0, (System.currentTimeMillis() * 1_000 - e.tickMicros) / 1e6);
            }
            flushTo = Math.max(flushTo, e.endLsn);
        }
        if (flushTo > 0) {
            LogSequenceNumber lsn = LogSequenceNumber.valueOf(flushTo);
            stream.setFlushedLSN(lsn);
            stream.setAppliedLSN(lsn);
        }
    }
}
