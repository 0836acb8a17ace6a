package dev.outbox.relay.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.OutboundMessage;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.rows.GeneratedRows;
import dev.outbox.testkit.rows.RowWriter;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a real PostgreSQL sends through a pgoutput slot for rows any SQL client may write
 * ({@link GeneratedRows}: every column over its range, NUL and astral characters, 70,000-byte
 * strings, timestamps from {@code -infinity} to {@code infinity}), decoded by {@link PgOutput} and
 * {@link CdcRows}, becomes exactly the AMQP message the polling relay makes of the same row read by
 * its MyBatis mapper, or the same refusal with the same code. The two modes must never put
 * different bytes on the wire. The changes are read with {@code pg_logical_slot_get_binary_changes},
 * the same bytes the replication protocol carries; needs {@code wal_level = logical}. Three batches
 * of 400 rows, new each build, into one slot; a failure prints QuickTheories' seed ({@code
 * -DQT_SEED=<seed>} replays it) and the failing batch's own.
 */
class CdcDecodingIT {
    private static final String SLOT = "cdc_decoding_it";
    private final TestDatabase db = TestDatabase.get();
    private HikariDataSource pool;
    private Injector injector;

    /** Once for the three batches, which share the database and the slot. */
    @BeforeEach
    void setUp() {
        CdcTestSupport.requireLogical(db);
        db.reset();
        CdcTestSupport.dropSlot(db, SLOT);
        db.scalar("SELECT lsn::text FROM pg_create_logical_replication_slot(?, 'pgoutput')", SLOT);
        pool = DataSources.create(DatabaseConfig.of(db.url(), db.user(), db.password(), "cdc-decoding-it")
                .withPoolSize(2));
        injector = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30)));
    }

    @AfterEach
    void tearDown() {
        CdcTestSupport.dropSlot(db, SLOT);
        if (pool != null) {
            pool.close();
        }
    }

    @Test
    void theStreamAndThePollingReadPutTheSameMessageOnTheWire() {
        // not shrunk: a shrunk seed draws another batch, not a smaller one
        qt().withExamples(3)
                .withShrinkCycles(0)
                .forAll(GeneratedRows.batches(400))
                .checkAssert(batch -> {
                    try {
                        streamAndPoll(batch.rows());
                    } catch (Exception e) {
                        throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
                    }
                });
    }

    /** One batch: written, read back from the slot and by the mapper, compared row by row. */
    private void streamAndPoll(List<GeneratedRows.Row> rows) throws Exception {
        List<UUID> written = new ArrayList<>();
        try (RowWriter writer = new RowWriter(pool)) {
            for (GeneratedRows.Row r : rows) {
                if (writer.insert(r).isEmpty()) {
                    written.add(r.id());
                }
            }
        }
        Map<UUID, OutboxRecord> streamed = new LinkedHashMap<>();
        Map<Integer, CdcRows.Columns> relations = new HashMap<>();
        Map<String, Integer> kinds = new java.util.TreeMap<>();
        // the slot gives what is flushed to disk: with asynchronous commit (the embedded server's
        // default) the last commits reach it a moment later, so read until they are all there
        try {
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        readChanges(relations, kinds, streamed);
                        return streamed.size() >= written.size();
                    });
        } catch (org.awaitility.core.ConditionTimeoutException missing) {
            // the assertion below says what is missing, with the slot's and the server's state
        }
        assertEquals(
                written.size(),
                streamed.size(),
                "every stored row came through the slot, once; messages " + kinds + "; slots "
                        + db.rows("SELECT slot_name, database, confirmed_flush_lsn::text, restart_lsn::text,"
                                + " pg_current_wal_lsn()::text FROM pg_replication_slots")
                        + "; rows " + db.count("SELECT count(*) FROM message_outbox") + " in "
                        + db.scalar("SELECT current_database()") + "; publications "
                        + db.rows("SELECT p.pubname, p.pubinsert, t.tablename FROM pg_publication p"
                                + " LEFT JOIN pg_publication_tables t ON t.pubname = p.pubname")
                        + "; server " + db.scalar("SELECT version()") + " port "
                        + db.scalar("SELECT inet_server_port()"));
        assertTrue(written.size() > 200, "most generated rows are stored: " + written.size());
        assertTrue(written.size() < rows.size(), "and PostgreSQL refuses some (NUL, bad JSON, CHECKs)");

        OutboxMapper mapper = injector.getInstance(OutboxMapper.class);
        int compared = 0;
        int refused = 0;
        for (UUID id : written) {
            OutboxRecord polled = CdcTestSupport.read(pool, mapper, id);
            OutboxRecord fromWal = streamed.get(id);
            assertEquals(polled.payload(), fromWal.payload(), "payload text of " + id);
            assertEquals(polled.headers(), fromWal.headers(), "headers text of " + id);
            assertEquals(polled.status(), fromWal.status(), "status of " + id);
            assertEquals(polled.attemptCount(), fromWal.attemptCount(), "attempts of " + id);
            AmqpMessageMapper.Mapped a = AmqpMessageMapper.map(polled);
            AmqpMessageMapper.Mapped b = AmqpMessageMapper.map(fromWal);
            assertEquals(describe(a), describe(b), "the wire form of row " + id);
            compared++;
            if (a instanceof AmqpMessageMapper.Invalid) {
                refused++;
            }
        }
        System.out.printf("[cdc-decoding] %d rows compared, %d of them refused alike%n", compared, refused);
        assertTrue(refused > 0, "the generated rows include ones the mapper refuses");
    }

    /** Takes what the slot has now (consuming it) into {@code streamed}. */
    private void readChanges(
            Map<Integer, CdcRows.Columns> relations, Map<String, Integer> kinds, Map<UUID, OutboxRecord> streamed)
            throws java.sql.SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT data FROM pg_logical_slot_get_binary_changes(?, NULL,"
                        + " NULL, 'proto_version', '1', 'publication_names', 'outbox_inserts', 'messages', 'true')")) {
            ps.setString(1, SLOT);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    PgOutput.Message m = PgOutput.decode(ByteBuffer.wrap(rs.getBytes(1)));
                    kinds.merge(m.getClass().getSimpleName(), 1, Integer::sum);
                    if (m instanceof PgOutput.Relation rel) {
                        relations.put(rel.id(), new CdcRows.Columns(rel.columns()));
                    } else if (m instanceof PgOutput.Insert ins) {
                        OutboxRecord r = CdcRows.toRecord(relations.get(ins.relationId()), ins.values());
                        streamed.put(r.id(), r);
                    }
                }
            }
        }
    }

    /** Everything of a mapping that reaches the wire (or the refusal), comparable with equals. */
    static List<Object> describe(AmqpMessageMapper.Mapped m) {
        if (m instanceof AmqpMessageMapper.Invalid invalid) {
            // Jackson's "Name length (N) exceeds" counts what it had buffered when it gave up, which
            // depends on its buffers, not the input: the same text twice can give two different N
            return List.of("invalid", invalid.code(), invalid.reason().replaceAll("\\d+", "#"));
        }
        OutboundMessage o = ((AmqpMessageMapper.Ready) m).message();
        com.rabbitmq.client.AMQP.BasicProperties p = o.properties();
        List<Object> out = new ArrayList<>();
        out.add(o.exchange());
        out.add(o.routingKey());
        out.add(o.messageId());
        out.add(java.util.Arrays.toString(o.body()));
        out.add(p.getContentType());
        out.add(p.getContentEncoding());
        out.add(Objects.toString(p.getHeaders()));
        out.add(p.getDeliveryMode());
        out.add(p.getCorrelationId());
        out.add(p.getMessageId());
        out.add(p.getTimestamp() == null ? null : p.getTimestamp().getTime());
        out.add(p.getType());
        out.add(p.getAppId());
        return out;
    }
}
