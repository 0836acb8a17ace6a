package dev.outbox.relay;

import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.publish.PublishSpans;
import dev.outbox.persistence.cdc.CdcStore;
import dev.outbox.relay.cdc.PgOutput;
import java.nio.ByteBuffer;
import java.sql.SQLException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.postgresql.replication.PGReplicationStream;

/**
 * One stream of the slot, read on the stream's thread ({@code relay-cdc}) from its opening until
 * it fails or the relay stops: the loop that takes in what the recorder settled, advances the
 * slot, ticks, reads the next pgoutput message unless too much is published and not yet recorded,
 * and hands it to the stream's {@link CdcTransactions}; on stopping, it lets what is in flight
 * settle so the slot's position says so. The parts of the stream's state are its transactions,
 * the {@link CdcAggregateOrder}, the {@link CdcSender}, the {@link CdcTicks} and the {@link
 * CdcKeepAlive}, all made for this stream and gone with it.
 */
final class CdcStreamReader {
    private final CdcConfig config;
    private final RelayConfig relayConfig;
    private final CdcRecorder recorder;
    private final BooleanSupplier running;
    private final PGReplicationStream stream;

    private final CdcKeepAlive keepAlive;
    private final CdcSender sender;
    private final CdcAggregateOrder aggregates;
    private final CdcTransactions transactions;
    private final CdcTicks ticks;

    CdcStreamReader(
            PGReplicationStream stream,
            CdcConfig config,
            RelayConfig relayConfig,
            CdcStore store,
            BrokerSession session,
            RelayStats stats,
            CdcCounters counters,
            CdcRecorder recorder,
            BooleanSupplier running,
            PublishSpans spans) {
        this.config = config;
        this.relayConfig = relayConfig;
        this.recorder = recorder;
        this.running = running;
        this.stream = stream;
        this.keepAlive = new CdcKeepAlive(stream);
        this.sender = new CdcSender(session, relayConfig, stats, recorder, keepAlive, running, spans);
        this.aggregates = new CdcAggregateOrder(relayConfig, store, counters, recorder, sender, keepAlive, running);
        this.transactions = new CdcTransactions(config, relayConfig, store, counters, aggregates, stream);
        this.ticks = new CdcTicks(config, store, counters);
    }

    /** The stream's loop: read, publish, advance the slot past what is settled, tick. */
    void read() throws Exception {
        try {
            loop();
            // stopping: let what is in flight settle, so the slot's position says so and a restart
            // replays nothing that was published (bounded by the confirm timeout)
            long deadline = System.nanoTime() + relayConfig.confirmTimeout().toNanos();
            while (recorder.unrecorded() > 0 && System.nanoTime() - deadline < 0) {
                settle();
                transactions.advance();
                LockSupport.parkNanos(1_000_000);
            }
            settle();
            transactions.advance();
            stream.forceUpdateStatus();
        } finally {
            // what it still has in flight is reported (unknown: left to the retry path, and sent again
            // by the next reader of the slot, since its transactions were not confirmed)
            sender.closeAll();
        }
    }

    /** Takes in what the recorder settled; the next version of an aggregate goes, or is left. */
    private void settle() throws InterruptedException, SQLException {
        CdcRecorder.Resolved r;
        while ((r = recorder.nextResolved()) != null) {
            CdcRow row = r.row();
            aggregates.settled(row, r.confirmed());
            row.txn.open--;
        }
    }

    private void loop() throws Exception {
        long idleReads = 0;
        while (running.getAsBoolean()) {
            settle();
            transactions.advance();
            // 3. a tick, now and then; and the stream's own liveness
            ticks.tickIfDue();
            sender.expire();
            // 4. read, unless too much is published and not yet recorded
            if (recorder.unrecorded() >= config.maxUnrecorded()) {
                // not reading means not answering the server's keepalives: tell it we are here,
                // or after wal_sender_timeout it ends the stream (a slow recorder then turned
                // into a reconnect storm that replayed everything in flight)
                keepAlive.keepAlive();
                Thread.sleep(5);
                continue;
            }
            ByteBuffer buffer = stream.readPending();
            if (buffer == null) {
                // nothing now: short naps while traffic is recent, longer ones once idle for a while
                // short naps (0.2 ms) for the first 5 ms after traffic, then 1 ms: a stream polled
                // every 0.1 ms woke 10,000 times a second under steady load
                idleReads++;
                LockSupport.parkNanos(idleReads < 25 ? 200_000 : 1_000_000);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                continue;
            }
            idleReads = 0;
            ticks.delivered();
            transactions.take(PgOutput.decode(buffer));
        }
    }
}
