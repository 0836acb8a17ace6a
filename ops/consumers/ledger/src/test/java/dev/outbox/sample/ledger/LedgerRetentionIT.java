package dev.outbox.sample.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.persistence.retention.RetentionPolicy;
import dev.outbox.persistence.retention.RetentionRun;
import dev.outbox.persistence.retention.RetentionTarget;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ledger prunes its own journal through its registration; the product's retention (the
 * relay's) neither names nor touches it, and the two passes hold different locks.
 */
class LedgerRetentionIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final RetentionPolicy POLICY = new RetentionPolicy(
            true, Duration.ofDays(7), Duration.ofDays(14), 10, Duration.ZERO, Duration.ofMinutes(10), Duration.ZERO);
    private static HikariDataSource pool;
    private static RetentionRun ledgerPass;
    private static RetentionRun productPass;

    @BeforeAll
    static void start() {
        pool = DataSources.create(DatabaseConfig.of(DB.url(), DB.user(), DB.password(), "ledger-retention-it"));
        SqlSessionFactory sessions = Guice.createInjector(new PersistenceModule(
                        pool,
                        Duration.ofSeconds(30),
                        LedgerConsumer.REGISTRATION.mappers().toArray(Class<?>[]::new)))
                .getInstance(SqlSessionFactory.class);
        ledgerPass = new RetentionRun(
                pool,
                sessions,
                RetentionRun.lockKeyFor(LedgerConsumer.NAME),
                LedgerConsumer.REGISTRATION.retention().stream()
                        .<RetentionTarget<?>>map(RetentionTarget::of)
                        .toList());
        productPass = RetentionRun.forProduct(pool, sessions);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void clean() {
        DB.reset();
        DB.update("INSERT INTO ledger_journal (consumer_name, instance_id, message_id, message_type, applied_at)"
                + " SELECT 'ledger', 'i', 'old-' || g, 'order.created', now() - interval '20 days'"
                + " FROM generate_series(1, 25) g");
        DB.update("INSERT INTO ledger_journal (consumer_name, instance_id, message_id, message_type, applied_at) VALUES"
                + " ('ledger', 'i', 'within-replay-window', 'order.created', now() - interval '10 days'),"
                + " ('ledger', 'i', 'new', 'order.created', now())");
    }

    private static List<Object> journal() {
        return DB.rows("SELECT message_id FROM ledger_journal ORDER BY message_id").stream()
                .map(r -> r.get("message_id"))
                .toList();
    }

    @Test
    void theLedgersPassDeletesItsJournalPastTheDedupeHorizonInBatches() throws Exception {
        RetentionRun.Result result = ledgerPass.run(POLICY);

        assertTrue(result.ran());
        assertEquals(List.of("ledger_journal"), ledgerPass.tables());
        assertEquals(25, result.deleted().get("ledger_journal"), "batches of 10: 10+10+5");
        assertEquals(List.of("new", "within-replay-window"), journal(), "kept as long as the dedupe records");
    }

    @Test
    void theProductsPassLeavesTheJournalAlone() throws Exception {
        RetentionRun.Result result = productPass.run(POLICY);

        assertTrue(result.ran());
        assertFalse(productPass.tables().contains("ledger_journal"));
        assertEquals(27, journal().size());
    }

    @Test
    void aLedgerPassInProgressNeverMakesTheRelaySkipItsTurn() throws Exception {
        try (Connection other = pool.getConnection();
                PreparedStatement lock = other.prepareStatement("SELECT pg_advisory_lock(?)")) {
            lock.setLong(1, RetentionRun.lockKeyFor(LedgerConsumer.NAME));
            lock.execute();
            assertFalse(ledgerPass.run(POLICY).ran(), "a second ledger pass waits its turn");
            assertTrue(productPass.run(POLICY).ran(), "the relay's pass holds a different lock");
            try (PreparedStatement unlock = other.prepareStatement("SELECT pg_advisory_unlock_all()")) {
                unlock.execute();
            }
        }
        assertTrue(ledgerPass.run(POLICY).ran());
    }
}
