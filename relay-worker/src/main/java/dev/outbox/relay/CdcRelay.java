package dev.outbox.relay;

import com.rabbitmq.client.Connection;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.PublishListener;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.cdc.CdcSlotView;
import dev.outbox.persistence.cdc.CdcStore;
import dev.outbox.persistence.cdc.CdcWrite;
import dev.outbox.relay.cdc.CdcRows;
import dev.outbox.relay.cdc.PgOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.util.PSQLException;
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
 */
public final class CdcRelay implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CdcRelay.class);
    private static final String TABLE = "message_outbox";
    /** Recently confirmed versions, so a successor rarely needs the database's word. */
    private static final int REMEMBERED_AGGREGATES = 100_000;

    private final CdcConfig config;
    private final RelayConfig relayConfig;
    private final DatabaseConfig database;
    private final CdcStore store;
    private final BrokerSession session;
    private final BackoffPolicy backoff;
    private final RelayStats stats;
    private final Thread thread;
    private final Thread recorderThread;
    private volatile boolean running = true;

    /** Outcomes from the broker's thread, for the recorder. */
    private final java.util.concurrent.LinkedBlockingQueue<Outcome> outcomes =
            new java.util.concurrent.LinkedBlockingQueue<>();
    /** Rows whose outcome is recorded (or who need none), for the stream's thread. */
    private final ConcurrentLinkedQueue<Resolved> resolved = new ConcurrentLinkedQueue<>();

    private final AtomicLong streamed = new AtomicLong();
    private final AtomicLong leftToRetryPath = new AtomicLong();
    private final AtomicLong slotsRecreated = new AtomicLong();
    private final AtomicLong unrecorded = new AtomicLong();
    private volatile boolean reading;
    private volatile long lagBytes = -1;
    private volatile double lagSeconds = -1;
    private volatile String state = "starting";

    private record Outcome(Row row, ErrorCode code, String detail, boolean leaveToRetryPath) {}

    /**
     * How long an outcome waits for its row to become visible before the relay gives up on it (a
     * row deleted right after its commit). Visibility follows the commit by microseconds to
     * milliseconds; the wait only bounds the odd case.
     */
    static final Duration VISIBILITY_WAIT = Duration.ofSeconds(10);

    /** Outcomes whose rows were not visible yet when first written (recorder thread only). */
    private final Map<Outcome, Long> invisibleSince = new java.util.IdentityHashMap<>();

    private final AtomicLong marksDeferred = new AtomicLong();

    /** Streams opened on the slot by this relay: more than one means it lost the stream and took it again. */
    private final AtomicLong streamsOpened = new AtomicLong();

    /**
     * How often the stream tells the server it is alive while it reads nothing (too many outcomes
     * unrecorded): well inside the smallest wal_sender_timeout the relay asks for (1 s).
     */
    static final Duration STATUS_WHILE_THROTTLED = Duration.ofMillis(250);

    /** The longest the stream's thread waits in one go for the broker (a window slot, a connection). */
    static final Duration WAIT_STEP = Duration.ofMillis(100);

    /** The stream being read, and when the server last heard from this reader (stream thread only). */
    private PGReplicationStream currentStream;

    private long lastStatusNanos;

    private record Resolved(Row row, boolean confirmed) {}

    /** A row of the stream and the transaction it came in. */
    private static final class Row {
        final OutboxRecord record;
        final Entry txn;

        Row(OutboxRecord record, Entry txn) {
            this.record = record;
            this.txn = txn;
        }

        String key() {
            return record.aggregateType() + "\u0000" + record.aggregateId();
        }
    }

    /** A transaction, or a tick, in stream order. */
    private static final class Entry {
        final long endLsn;
        final long tickXmin;
        final long tickMicros;
        int open;

        Entry(long endLsn, long tickXmin, long tickMicros) {
            this.endLsn = endLsn;
            this.tickXmin = tickXmin;
            this.tickMicros = tickMicros;
        }

        boolean tick() {
            return tickXmin >= 0;
        }
    }

    public CdcRelay(
            CdcConfig config,
            RelayConfig relayConfig,
            DatabaseConfig database,
            CdcStore store,
            BrokerSession session,
            RelayStats stats) {
        this.config = config;
        this.relayConfig = relayConfig;
        this.database = database;
        this.store = store;
        this.session = session;
        this.backoff = new BackoffPolicy(relayConfig.backoff());
        this.stats = stats;
        this.thread = new Thread(this::run, "relay-cdc");
        this.thread.setDaemon(true);
        this.recorderThread = new Thread(this::record, "relay-cdc-recorder");
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
        return streamed.get();
    }

    public long leftToRetryPath() {
        return leftToRetryPath.get();
    }

    public long streamsOpened() {
        return streamsOpened.get();
    }

    /** Outcomes written again because their row was not visible yet when the first write ran. */
    public long marksDeferred() {
        return marksDeferred.get();
    }

    public long slotsRecreated() {
        return slotsRecreated.get();
    }

    /** WAL the server keeps for the slot, in bytes; -1 before the first look. */
    public long lagBytes() {
        return lagBytes;
    }

    /** Seconds between the newest tick written and the newest tick handled; -1 before the first. */
    public double lagSeconds() {
        return lagSeconds;
    }

    private void run() {
        Duration wait = config.standbyRetry();
        while (running) {
            try {
                stream();
                wait = config.standbyRetry();
            } catch (Standby s) {
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

    /** Thrown when another session reads the slot: this relay stands by. */
    private static final class Standby extends Exception {
        private static final long serialVersionUID = 1L;

        Standby(String message) {
            super(message, null, false, false);
        }
    }

    private void ensureSlot() throws Standby {
        String level = store.walLevel();
        if (!"logical".equals(level)) {
            throw new IllegalStateException("CDC mode needs wal_level = logical, the server runs with " + level
                    + " (ALTER SYSTEM SET wal_level = logical, then restart PostgreSQL; README, \"CDC mode\")");
        }
        if (!store.publishesOutbox(config.publication())) {
            // the table was dropped and created again (a schema migrated anew): the publication
            // survives without it, and the slot would stream nothing at all, silently
            LOG.error(
                    "publication {} does not publish message_outbox (was the table created again?): adding it",
                    config.publication());
            try {
                store.addOutboxTo(config.publication());
            } catch (DataAccessException e) {
                throw new IllegalStateException(
                        "publication " + config.publication() + " does not publish"
                                + " message_outbox and it cannot be added (" + e.getMessage() + "): run"
                                + " ALTER PUBLICATION " + config.publication() + " ADD TABLE message_outbox",
                        e);
            }
        }
        CdcSlotView slot = store.slot(config.slot()).orElse(null);
        if (slot != null && (!slot.thisDatabase() || !"pgoutput".equals(slot.plugin()))) {
            // slot names are the server's, not the database's: another database's relay (or another
            // tool) may have taken this one
            throw new IllegalStateException("replication slot " + config.slot() + " belongs to database "
                    + slot.database() + " with plugin " + slot.plugin() + ", not to this database with pgoutput:"
                    + " give this relay a slot of its own (OUTBOX_RELAY_CDC_SLOT)");
        }
        if (slot != null && slot.lost()) {
            slotsRecreated.incrementAndGet();
            LOG.error(
                    "replication slot {} was invalidated (max_slot_wal_keep_size: the server dropped WAL it kept for"
                            + " it): dropping and recreating it; the rows committed meanwhile are still PENDING and"
                            + " the retry path publishes them by polling",
                    config.slot());
            store.dropSlot(config.slot());
            slot = null;
        }
        if (slot == null) {
            try {
                String lsn = store.createSlot(config.slot());
                LOG.info("created replication slot {} at {}", config.slot(), lsn);
            } catch (DataAccessException e) {
                // another relay created it first: read it, or stand by
                LOG.info("could not create replication slot {} ({}); looking again", config.slot(), e.getMessage());
            }
            // what was committed before the slot is not in its stream: the retry path's, now
            store.startPosition(config.slot(), relayConfig.relayId());
        } else if (slot.active()) {
            throw new Standby("slot " + config.slot() + " is read by backend " + slot.activePid());
        }
    }

    private void stream() throws Exception {
        state = "opening";
        ensureSlot();
        Properties props = DataSources.unpooled(database, " cdc");
        PGProperty.REPLICATION.set(props, "database");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
        PGProperty.PREFER_QUERY_MODE.set(props, "simple");
        // reads are non-blocking (readPending); a silent server is noticed by the ticks, not a timeout
        props.remove("socketTimeout");
        PGProperty.OPTIONS.set(
                props, "-c wal_sender_timeout=" + config.walSenderTimeout().toMillis());
        try (java.sql.Connection replication = DriverManager.getConnection(database.url(), props)) {
            PGConnection pg = replication.unwrap(PGConnection.class);
            PGReplicationStream stream;
            try {
                stream = pg.getReplicationAPI()
                        .replicationStream()
                        .logical()
                        .withSlotName(config.slot())
                        .withSlotOption("proto_version", "1")
                        .withSlotOption("publication_names", config.publication())
                        .withSlotOption("messages", "true")
                        .withStatusInterval(1, TimeUnit.SECONDS)
                        .start();
            } catch (PSQLException e) {
                if ("55006".equals(e.getSQLState())) {
                    throw new Standby(e.getMessage());
                }
                throw e;
            }
            try {
                reading = true;
                streamsOpened.incrementAndGet();
                state = "reading";
                LOG.info("relay {} reads replication slot {}", relayConfig.relayId(), config.slot());
                pump(stream);
            } finally {
                reading = false;
                stream.close();
            }
        }
    }

    /** The stream's loop: read, publish, advance the slot past what is settled, tick. */
    private void pump(PGReplicationStream stream) throws Exception {
        Session session = new Session();
        try {
            session.loop(stream);
            // stopping: let what is in flight settle, so the slot's position says so and a restart
            // replays nothing that was published (bounded by the confirm timeout)
            long deadline = System.nanoTime() + relayConfig.confirmTimeout().toNanos();
            while (unrecorded.get() > 0 && System.nanoTime() - deadline < 0) {
                session.settle();
                session.advance(stream);
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            session.settle();
            session.advance(stream);
            stream.forceUpdateStatus();
        } finally {
            // what it still has in flight is reported (unknown: left to the retry path, and sent again
            // by the next reader of the slot, since its transactions were not confirmed)
            publishers.forEach(ConfirmPublisher::close);
            publishers.clear();
        }
    }

    /** The stream's publishers (one at a time; the last one closed when the stream ends). */
    private final List<ConfirmPublisher<Row>> publishers = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The state of one stream: what is in flight, in stream order, and what each aggregate waits for. */
    private final class Session {
        final Map<Integer, CdcRows.Columns> relations = new HashMap<>();
        final ArrayDeque<Entry> order = new ArrayDeque<>();
        final Map<String, ArrayDeque<Row>> waiting = new HashMap<>();
        final Map<String, Long> confirmedVersions = new LinkedHashMap<>(1_024, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                return size() > REMEMBERED_AGGREGATES;
            }
        };
        /** Aggregates whose last version the stream left to the retry path, with that row's id. */
        final Map<String, UUID> blocked = new HashMap<>();
        /** Aggregates with versions in flight when a transaction too large to hold was left to the retry path. */
        final Set<String> untrusted = new HashSet<>();

        final PublishListener<Row> listener = listener();
        ConfirmPublisher<Row> publisher;

        /** Takes in what the recorder settled; the next version of an aggregate goes, or is left. */
        void settle() throws InterruptedException, java.sql.SQLException {
            Resolved r;
            while ((r = resolved.poll()) != null) {
                Row row = r.row;
                String key = orderedRow(row.record) ? row.key() : null;
                if (key != null) {
                    if (r.confirmed) {
                        confirmedVersions.put(key, row.record.aggregateVersion());
                    } else {
                        blocked.put(key, row.record.id());
                    }
                    ArrayDeque<Row> queue = waiting.get(key);
                    if (queue != null && queue.peek() == row) {
                        // this row was in flight; the next version of the aggregate goes (or waits with it)
                        queue.poll();
                        // a transaction too large to hold went to the retry path meanwhile: it may hold
                        // the version between this one and the next, which memory cannot tell
                        boolean distrusted = untrusted.remove(key);
                        if (queue.isEmpty()) {
                            waiting.remove(key);
                        } else if (!r.confirmed || distrusted) {
                            for (Row behind : queue) {
                                leave(behind);
                            }
                            waiting.remove(key);
                        } else if (running) {
                            publisher = send(publisher, queue.peek(), listener);
                        }
                    }
                }
                row.txn.open--;
            }
        }

        /** Advances the slot past every settled transaction at the front; records settled ticks. */
        void advance(PGReplicationStream stream) {
            long flushTo = -1;
            while (!order.isEmpty() && order.peek().open == 0) {
                Entry e = order.poll();
                if (e.tick()) {
                    store.savePosition(
                            config.slot(),
                            relayConfig.relayId(),
                            e.tickXmin,
                            LogSequenceNumber.valueOf(e.endLsn).asString(),
                            e.tickMicros);
                    lagSeconds = Math.max(0, (System.currentTimeMillis() * 1_000 - e.tickMicros) / 1e6);
                }
                flushTo = Math.max(flushTo, e.endLsn);
            }
            if (flushTo > 0) {
                LogSequenceNumber lsn = LogSequenceNumber.valueOf(flushTo);
                stream.setFlushedLSN(lsn);
                stream.setAppliedLSN(lsn);
            }
        }

        void loop(PGReplicationStream stream) throws Exception {
            currentStream = stream;
            lastStatusNanos = System.nanoTime();
            Entry txn = null;
            List<Row> rows = new ArrayList<>();
            long nextTick = 0;
            // when the first tick written since the stream last delivered anything was written (0:
            // none since): a stream busy replaying a backlog delivers messages, if not yet the ticks
            long silentSince = 0;
            long idleReads = 0;
            int txnRows = 0;
            while (running) {
                settle();
                advance(stream);
                // 3. a tick, now and then; and the stream's own liveness
                long now = System.nanoTime();
                if (now - nextTick >= 0) {
                    nextTick = now + config.tickInterval().toNanos();
                    try {
                        store.emitTick(CdcConfig.TICK_PREFIX);
                        if (silentSince == 0) {
                            silentSince = now;
                        }
                        CdcSlotView slot = store.slot(config.slot()).orElse(null);
                        if (slot != null && slot.lagBytes() != null) {
                            lagBytes = slot.lagBytes();
                        }
                    } catch (DataAccessException e) {
                        LOG.debug("could not write a tick: {}", e.getMessage());
                    }
                    if (silentSince != 0 && now - silentSince > config.silence().toNanos()) {
                        throw new IllegalStateException("the stream delivered nothing for "
                                + TimeUnit.NANOSECONDS.toMillis(now - silentSince) + " ms while ticks were written");
                    }
                }
                ConfirmPublisher<Row> p = publisher;
                if (p != null) {
                    p.expire(relayConfig.confirmTimeout());
                }
                // 4. read, unless too much is published and not yet recorded
                if (unrecorded.get() >= config.maxUnrecorded()) {
                    // not reading means not answering the server's keepalives: tell it we are here,
                    // or after wal_sender_timeout it ends the stream (a slow recorder then turned
                    // into a reconnect storm that replayed everything in flight)
                    keepAlive();
                    Thread.sleep(5);
                    continue;
                }
                ByteBuffer buffer = stream.readPending();
                if (buffer == null) {
                    // nothing now: short naps while traffic is recent, longer ones once idle for a while
                    // short naps (0.2 ms) for the first 5 ms after traffic, then 1 ms: a stream polled
                    // every 0.1 ms woke 10,000 times a second under steady load
                    idleReads++;
                    java.util.concurrent.locks.LockSupport.parkNanos(idleReads < 25 ? 200_000 : 1_000_000);
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    continue;
                }
                idleReads = 0;
                silentSince = 0;
                PgOutput.Message m = PgOutput.decode(buffer);
                if (m instanceof PgOutput.Begin) {
                    txn = new Entry(-1, -1, 0); // a placeholder: the rows get the commit's entry
                    rows.clear();
                    txnRows = 0;
                } else if (m instanceof PgOutput.Relation rel) {
                    relations.put(rel.id(), TABLE.equals(rel.name()) ? new CdcRows.Columns(rel.columns()) : null);
                } else if (m instanceof PgOutput.Insert ins) {
                    CdcRows.Columns columns = relations.get(ins.relationId());
                    if (columns != null && txn != null) {
                        txnRows++;
                        if (txnRows <= config.maxTransactionRows()) {
                            rows.add(new Row(CdcRows.toRecord(columns, ins.values()), txn));
                        } else {
                            rows.clear(); // too many to hold: the whole transaction goes to the retry path
                        }
                    }
                } else if (m instanceof PgOutput.Commit c && txnRows > config.maxTransactionRows()) {
                    Entry done = new Entry(c.endLsn(), -1, 0);
                    order.add(done); // nothing open: its rows are the retry path's from the next tick on
                    streamed.addAndGet(txnRows);
                    leftToRetryPath.addAndGet(txnRows);
                    untrusted.addAll(waiting.keySet());
                    LOG.info(
                            "a transaction of {} rows (more than OUTBOX_RELAY_CDC_MAX_TRANSACTION_ROWS = {}) is left"
                                    + " to the retry path, which publishes it by polling",
                            txnRows,
                            config.maxTransactionRows());
                    rows.clear();
                    txn = null;
                    txnRows = 0;
                } else if (m instanceof PgOutput.Commit c) {
                    Entry done = new Entry(c.endLsn(), -1, 0);
                    List<Row> mine = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        mine.add(new Row(row.record, done));
                    }
                    rows.clear();
                    txn = null;
                    order.add(done);
                    done.open = mine.size();
                    publisher = admit(mine, publisher, listener, waiting, confirmedVersions, blocked);
                } else if (m instanceof PgOutput.LogicalMessage lm && CdcConfig.TICK_PREFIX.equals(lm.prefix())) {
                    String[] parts = lm.content().split(" ");
                    order.add(new Entry(lm.lsn(), Long.parseLong(parts[0]), Long.parseLong(parts[1])));
                }
            }
        }
    }

    /**
     * Tells the server this reader is alive while the stream's thread does not read: while it is
     * throttled (too many outcomes unrecorded) and while it publishes a large transaction. Not
     * answering for wal_sender_timeout makes the server end the stream (stream thread only).
     */
    private void keepAlive() throws java.sql.SQLException {
        long now = System.nanoTime();
        if (currentStream != null && now - lastStatusNanos >= STATUS_WHILE_THROTTLED.toNanos()) {
            currentStream.forceUpdateStatus();
            lastStatusNanos = now;
        }
    }

    /** Whether the row takes its turn in its aggregate's order (a version, of an ordered type). */
    private boolean orderedRow(OutboxRecord r) {
        return r.aggregateVersion() != null && !relayConfig.unorderedTypes().contains(r.messageType());
    }

    /** Decides, for a committed transaction's rows, which go now, which wait, which are left. */
    private ConfirmPublisher<Row> admit(
            List<Row> rows,
            ConfirmPublisher<Row> publisher,
            PublishListener<Row> listener,
            Map<String, ArrayDeque<Row>> waiting,
            Map<String, Long> confirmedVersions,
            Map<String, UUID> blocked)
            throws InterruptedException, java.sql.SQLException {
        List<Row> ask = new ArrayList<>();
        List<Row> go = new ArrayList<>();
        for (Row row : rows) {
            streamed.incrementAndGet();
            OutboxRecord rec = row.record;
            if (rec.status() != OutboxStatus.PENDING
                    || (rec.nextAttemptAt() != null && rec.nextAttemptAt().isAfter(Instant.now()))) {
                // written as something else than a fresh row, or not due: not the stream's
                leave(row);
                continue;
            }
            if (!orderedRow(rec)) {
                go.add(row);
                continue;
            }
            String key = row.key();
            ArrayDeque<Row> queue = waiting.get(key);
            if (queue != null) {
                queue.add(row); // behind a version in flight
                continue;
            }
            Long confirmed = confirmedVersions.get(key);
            if (!blocked.containsKey(key)
                    && (rec.aggregateVersion() == 1L || confirmed != null && confirmed == rec.aggregateVersion() - 1)) {
                waiting.computeIfAbsent(key, k -> new ArrayDeque<>()).add(row);
                go.add(row);
            } else {
                ask.add(row);
            }
        }
        if (!ask.isEmpty()) {
            List<UUID> leftBehind = new ArrayList<>(ask.size());
            for (Row row : ask) {
                leftBehind.add(blocked.get(row.key()));
            }
            Set<Integer> held = store.heldBehindEarlierVersions(
                    ask.stream().map(r -> r.record).toList(), leftBehind);
            for (int i = 0; i < ask.size(); i++) {
                Row row = ask.get(i);
                String key = row.key();
                if (held.contains(i) || waiting.containsKey(key)) {
                    if (waiting.containsKey(key)) {
                        waiting.get(key).add(row);
                    } else {
                        leave(row);
                    }
                } else {
                    blocked.remove(key);
                    waiting.computeIfAbsent(key, k -> new ArrayDeque<>()).add(row);
                    go.add(row);
                }
            }
        }
        for (Row row : go) {
            keepAlive();
            publisher = send(publisher, row, listener);
        }
        return publisher;
    }

    /** Leaves a row PENDING for the retry path: nothing to write, settled as far as the stream goes. */
    private void leave(Row row) {
        leftToRetryPath.incrementAndGet();
        resolved.add(new Resolved(row, false));
    }

    private ConfirmPublisher<Row> send(ConfirmPublisher<Row> publisher, Row row, PublishListener<Row> listener)
            throws InterruptedException, java.sql.SQLException {
        AmqpMessageMapper.Mapped mapped = AmqpMessageMapper.map(row.record);
        if (mapped instanceof AmqpMessageMapper.Invalid invalid) {
            unrecorded.incrementAndGet();
            outcomes.add(new Outcome(row, invalid.code(), invalid.reason(), false));
            return publisher;
        }
        while (running) {
            // a broker outage keeps this thread here: the server must still hear from the reader
            keepAlive();
            ConfirmPublisher<Row> p = publisher;
            if (p == null || !p.isOpen()) {
                Connection connection = session.connection();
                if (connection == null) {
                    session.awaitAvailable(WAIT_STEP);
                    continue;
                }
                try {
                    p = ConfirmPublisher.open(
                            connection,
                            relayConfig.confirmWindow(),
                            session.config().maxMessageBytes(),
                            listener);
                    if (publisher != null) {
                        publishers.remove(publisher);
                    }
                    publishers.add(p);
                    publisher = p;
                } catch (IOException | com.rabbitmq.client.ShutdownSignalException e) {
                    // the connection closed under us (a broker restart): wait for the session's next
                    // one; ending the stream here would hand the slot to a standby and replay what is
                    // in flight
                    if (session.awaitAvailable(WAIT_STEP)) {
                        Thread.sleep(100); // the session has not noticed yet: do not spin
                    }
                    continue;
                }
            }
            if (!p.acquireSlot(WAIT_STEP)) {
                p.expire(relayConfig.confirmTimeout());
                continue;
            }
            try {
                unrecorded.incrementAndGet();
                p.publish(((AmqpMessageMapper.Ready) mapped).message(), row);
                stats.attempted();
                return publisher;
            } catch (IOException e) {
                // not sent, and the caller still owns it: a fresh channel takes it
                unrecorded.decrementAndGet();
                publisher = null;
            }
        }
        // stopping: the row stays PENDING and unflushed; the next reader of the slot sends it
        return publisher;
    }

    private PublishListener<Row> listener() {
        return new PublishListener<>() {
            @Override
            public void confirmed(Row row, long confirmNanos) {
                stats.confirmed(
                        row.record.id(),
                        confirmNanos,
                        row.record.createdAt() == null
                                ? Duration.ZERO
                                : Duration.between(row.record.createdAt(), Instant.now()));
                outcomes.add(new Outcome(row, null, null, false));
            }

            @Override
            public void failed(Row row, ErrorCode code, String detail) {
                stats.failed(code);
                outcomes.add(new Outcome(row, code, detail, false));
            }

            @Override
            public void suspect(Row row, ErrorCode code, String detail) {
                // the broker closed the channel and did not say for which message: the retry path
                // publishes the rows it left, each alone after a channel error, and finds out
                outcomes.add(new Outcome(row, code, detail, true));
            }

            @Override
            public void unknown(Row row, String detail) {
                outcomes.add(new Outcome(row, null, detail, true));
            }
        };
    }

    /** The recorder: writes outcomes in batches, keeps them through a database outage, then settles them. */
    private void record() {
        List<Outcome> batch = new ArrayList<>();
        int failures = 0;
        // on until the stream's thread has ended: while stopping, it waits for the outcomes in flight
        while (running || thread.isAlive() || !outcomes.isEmpty() || !batch.isEmpty()) {
            Outcome o;
            while (batch.size() < relayConfig.markBatchSize() && (o = outcomes.poll()) != null) {
                batch.add(o);
            }
            if (batch.isEmpty()) {
                // wait for the broker's next answer rather than poll for it: on two cores shared with
                // the database and the broker, a thread waking 5,000 times a second costs them
                try {
                    o = outcomes.poll(50, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (o != null) {
                    batch.add(o);
                }
                continue;
            }
            try {
                Set<Outcome> unseen = write(batch);
                failures = 0;
                long now = System.nanoTime();
                List<Outcome> again = new ArrayList<>();
                for (Outcome done : batch) {
                    if (unseen.contains(done)) {
                        long since = invisibleSince.computeIfAbsent(done, k -> now);
                        if (now - since < VISIBILITY_WAIT.toNanos()) {
                            again.add(done);
                            continue;
                        }
                        invisibleSince.remove(done);
                        LOG.warn(
                                "row {} came through the slot but is not in the table {} ms later (deleted?):"
                                        + " nothing recorded for it",
                                done.row.record.id(),
                                VISIBILITY_WAIT.toMillis());
                        resolved.add(new Resolved(done.row, false));
                        unrecorded.decrementAndGet();
                        continue;
                    }
                    invisibleSince.remove(done);
                    // resolved before the count drops: a stopping stream that sees no outcome unrecorded
                    // must find every one of them to settle, or its last position misses them and the
                    // next reader streams them again
                    resolved.add(new Resolved(done.row, done.code == null && !done.leaveToRetryPath));
                    unrecorded.decrementAndGet();
                }
                batch.clear();
                if (!again.isEmpty()) {
                    // the committing session makes its transaction visible a moment after the stream
                    // delivered it: write these again shortly, before anything newer is settled behind them
                    marksDeferred.addAndGet(again.size());
                    batch.addAll(again);
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                }
            } catch (DataAccessException e) {
                failures++;
                stats.outcomeUnrecorded();
                long delay = Math.min(5_000, 50L << Math.min(failures, 7));
                if (Integer.bitCount(failures) == 1) {
                    LOG.warn(
                            "cannot record {} outcome(s) ({}); retrying in {} ms", batch.size(), e.getMessage(), delay);
                }
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException ie) {
                    return;
                }
            } catch (Throwable e) { // NOPMD: the recorder must not end: outcomes would never be written
                stats.unexpected("cdc-recorder");
                LOG.error("recording outcomes failed; trying again", e);
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Writes the batch's outcomes; returns those whose rows this session does not see yet. */
    private Set<Outcome> write(List<Outcome> batch) {
        List<UUID> published = new ArrayList<>();
        List<CdcStore.Failure> failed = new ArrayList<>();
        for (Outcome o : batch) {
            if (o.leaveToRetryPath) {
                leftToRetryPath.incrementAndGet();
            } else if (o.code == null) {
                published.add(o.row.record.id());
            } else {
                failed.add(decide(o.row.record, o.code, o.detail));
            }
        }
        // one statement per kind answers for every row it saw, from one snapshot (CdcMapper.xml)
        List<CdcWrite> answers = new ArrayList<>(store.markPublished(published));
        answers.addAll(store.recordFailures(failed));
        Set<UUID> seen = new HashSet<>();
        int stands = 0;
        for (CdcWrite a : answers) {
            seen.add(a.id());
            if (!a.written()) {
                stands++;
            }
        }
        if (stands > 0) {
            LOG.info(
                    "{} streamed row(s) were no longer PENDING when their outcome came (cancelled, or taken by the"
                            + " retry path): their state stands",
                    stands);
        }
        Set<Outcome> unseen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Outcome o : batch) {
            if (!o.leaveToRetryPath && !seen.contains(o.row.record.id())) {
                unseen.add(o);
            }
        }
        return unseen;
    }

    /** Parks permanent failures at once; retries the others on the backoff schedule, as polling does. */
    private CdcStore.Failure decide(OutboxRecord row, ErrorCode code, String detail) {
        // a streamed row was never claimed: this attempt is not counted in the row yet
        BackoffPolicy.Verdict v = backoff.decide(code, detail, row.attemptCount() + 1);
        return new CdcStore.Failure(row.id(), code, v.detail(), v.retryAfter());
    }

    @Override
    public void close() {
        running = false;
        try {
            // the stream lets what is in flight settle and confirms its position (bounded by the
            // confirm timeout); only a thread stuck past that is interrupted
            thread.join(relayConfig.confirmTimeout().toMillis() + 2_000);
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(5_000);
            }
            recorderThread.join(relayConfig.confirmTimeout().toMillis() + 5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
