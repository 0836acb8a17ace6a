package dev.outbox.relay;

import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.publish.PublishSpans;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.cdc.CdcStore;
import java.time.Duration;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay in CDC mode ({@code OUTBOX_RELAY_MODE=cdc}): reads the rows inserted into {@code
 * message_outbox} from a logical replication slot (pgoutput, publication {@code outbox_inserts}),
 * publishes each on a confirm channel with {@code mandatory}, and writes the outcome once the
 * broker answered: one statement per batch of rows, where polling needs two per row (claim and
 * mark). The slot's confirmed position advances only past transactions whose every row has its
 * outcome durably recorded, or was deliberately left {@code PENDING} to the retry path; a crash
 * replays the rest, at least once.
 *
 * <p>What the stream does not finish, the polling relay in the same process does, as the retry
 * path: failed rows ({@code RETRYABLE_FAILED}), rows held behind an unfinished earlier version of
 * their aggregate, rows a closed channel left in doubt, rows committed before the slot existed.
 * The stream hands them over by writing its position ({@code outbox_cdc_position}): a tick it
 * writes into the WAL every {@link CdcConfig#tickInterval} carries a snapshot's xmin, and once the
 * tick comes through the stream with everything before it handled, every transaction preceding
 * that xmin is done with; the retry path claims a {@code PENDING} row only then ({@code
 * OutboxMapper.claimPending} with a slot).
 *
 * <p>Per-aggregate order: the stream sees versions in commit order; it sends a version only once
 * the one before it was confirmed (in this run) or the database says no earlier version is
 * unfinished, and a version behind one that failed is left to the retry path, which claims in
 * order. One reader per slot: PostgreSQL lets one session read a slot at a time, so a second relay
 * in CDC mode is a standby that takes the slot over when the first one's session ends.
 *
 * <p>This class owns the relay's two threads and their lifecycle: the stream's thread ({@code
 * relay-cdc}), which opens the slot's stream and reads it until it ends, then opens it again (or
 * stands by), and the recorder's ({@code relay-cdc-recorder}). The parts: {@link CdcSlot} (the
 * slot, and who reads it), {@link CdcStreamReader} (one stream's loop, with its {@link
 * CdcTransactions}, {@link CdcAggregateOrder}, {@link CdcSender}, {@link CdcTicks} and {@link
 * CdcKeepAlive}), {@link CdcRecorder} (writing the outcomes) and {@link CdcCounters} (what the
 * metrics read).
 */
public final class CdcRelay implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CdcRelay.class);

    private final PublishSpans spans;
    private final CdcConfig config;
    private final RelayConfig relayConfig;
    private final CdcStore store;
    private final BrokerSession session;
    private final RelayStats stats;
    private final CdcCounters counters = new CdcCounters();
    private final CdcSlot slot;
    private final CdcRecorder recorder;
    private final Thread thread;
    private final Thread recorderThread;
    private volatile boolean running = true;

    private volatile boolean reading;
    private volatile String state = "starting";

    public CdcRelay(
            CdcConfig config,
            RelayConfig relayConfig,
            DatabaseConfig database,
            CdcStore store,
            BrokerSession session,
            RelayStats stats,
            PublishSpans spans) {
        this.spans = spans;
        this.config = config;
        this.relayConfig = relayConfig;
        this.store = store;
        this.session = session;
        this.stats = stats;
        this.slot = new CdcSlot(config, relayConfig, database, store, counters);
        this.thread = new Thread(this::run, "relay-cdc");
        this.thread.setDaemon(true);
        this.recorder = new CdcRecorder(
                store,
                new BackoffPolicy(relayConfig.backoff()),
                stats,
                relayConfig.markBatchSize(),
                counters,
                () -> running || thread.isAlive());
        this.recorderThread = new Thread(recorder::run, "relay-cdc-recorder");
        this.recorderThread.setDaemon(true);
    }

    public void start() {
        recorderThread.start();
        thread.start();
    }

    /** True while this relay reads the slot (false: a standby, or reconnecting). */
    public boolean reading() {
        return reading;
    }

    /** What the stream is doing, for health and logs. */
    public String state() {
        return state;
    }

    public long streamed() {
        return counters.streamed.get();
    }

    public long leftToRetryPath() {
        return counters.leftToRetryPath.get();
    }

    public long streamsOpened() {
        return counters.streamsOpened.get();
    }

    /** Outcomes written again because their row was not visible yet when the first write ran. */
    public long marksDeferred() {
        return counters.marksDeferred.get();
    }

    public long slotsRecreated() {
        return counters.slotsRecreated.get();
    }

    /** WAL the server keeps for the slot, in bytes; -1 before the first look. */
    public long lagBytes() {
        return counters.lagBytes;
    }

    /** Seconds between the newest tick written and the newest tick handled; -1 before the first. */
    public double lagSeconds() {
        return counters.lagSeconds;
    }

    private void run() {
        Duration wait = config.standbyRetry();
        while (running) {
            try {
                stream();
                wait = config.standbyRetry();
            } catch (CdcSlot.Standby s) {
                state = "standby: " + s.getMessage();
                wait = config.standbyRetry();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Throwable e) { // NOPMD: the loop boundary; whatever ends a stream, a new one starts
                stats.unexpected("cdc-stream");
                state = "reconnecting: " + e.getMessage();
                LOG.warn("CDC stream of slot {} ended ({}); opening it again", config.slot(), e.toString());
                wait = wait.multipliedBy(2).compareTo(relayConfig.reconnectMax()) > 0
                        ? relayConfig.reconnectMax()
                        : wait.multipliedBy(2);
            } finally {
                reading = false;
            }
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void stream() throws Exception {
        state = "opening";
        slot.ensure();
        try (java.sql.Connection replication = slot.connect()) {
            PGReplicationStream stream = slot.open(replication);
            try {
                reading = true;
                counters.streamsOpened.incrementAndGet();
                state = "reading";
                LOG.info("relay {} reads replication slot {}", relayConfig.relayId(), config.slot());
                new CdcStreamReader(
                                stream,
                                config,
                                relayConfig,
                                store,
                                session,
                                stats,
                                counters,
                                recorder,
                                () -> running,
                                spans)
                        .read();
            } finally {
                reading = false;
                stream.close();
            }
        }
    }

    /** Beyond the confirm timeout, how long {@link #close} waits for the stream to settle. */
    private static final Duration STREAM_SETTLE_SLACK = Duration.ofSeconds(2);

    /** How long {@link #close} waits for a stream thread it had to interrupt. */
    private static final Duration INTERRUPTED_EXIT = Duration.ofSeconds(5);

    /** Beyond the confirm timeout, how long {@link #close} waits for the stream's outcomes to be written. */
    private static final Duration RECORDER_SLACK = Duration.ofSeconds(5);

    /** The longest {@link #close} takes. */
    static Duration closeBound(RelayConfig relayConfig) {
        return relayConfig
                .confirmTimeout()
                .plus(STREAM_SETTLE_SLACK)
                .plus(INTERRUPTED_EXIT)
                .plus(relayConfig.confirmTimeout())
                .plus(RECORDER_SLACK);
    }

    @Override
    public void close() {
        running = false;
        try {
            // the stream lets what is in flight settle and confirms its position (bounded by the
            // confirm timeout); only a thread stuck past that is interrupted
            thread.join(relayConfig.confirmTimeout().plus(STREAM_SETTLE_SLACK).toMillis());
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(INTERRUPTED_EXIT.toMillis());
            }
            recorderThread.join(
                    relayConfig.confirmTimeout().plus(RECORDER_SLACK).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
