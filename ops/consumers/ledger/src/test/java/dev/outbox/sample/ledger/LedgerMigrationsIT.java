package dev.outbox.sample.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.testkit.ReleasedScripts;
import dev.outbox.testkit.SampleMigrations;
import dev.outbox.testkit.ScratchDatabase;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The ledger's own script ({@code db/ledger}, from its registration) makes {@code ledger_entries}
 * and {@code ledger_journal} exactly as the outbox's scripts of the earlier releases made them
 * ({@link ReleasedScripts}); on a database such a release migrated and this release upgraded it
 * changes nothing and loses nothing, and records itself in the ledger's own
 * history.
 */
class LedgerMigrationsIT {
    private static final List<String> TABLES = List.of("ledger_entries", "ledger_journal");

    @Test
    void itsOwnScriptMakesTheTablesInTheShapeTheOutboxsScriptsGaveThem() {
        try (ScratchDatabase byTheOutbox = ScratchDatabase.create();
                ScratchDatabase byItself = ScratchDatabase.create()) {
            byTheOutbox.migrateAsReleased();
            migrateLedger(byItself);

            for (String table : TABLES) {
                List<String> shape = byItself.shape(table);
                assertFalse(shape.isEmpty(), table);
                assertEquals(byTheOutbox.shape(table), shape, table);
            }
            assertFalse(byItself.tableExists("message_outbox"), "the ledger's script makes its own tables only");
        }
    }

    @Test
    void onADatabaseTheOutboxMigratedItChangesNothingAndRecordsItself() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            db.migrateAsReleased();
            DatabaseMigrations.migrate(db.dataSource());
            db.execute("INSERT INTO ledger_entries (id, order_id, payment_id, entry_type, amount, currency, message_id)"
                    + " VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'CAPTURE', 10, 'EUR', 'm-1')");
            db.execute("INSERT INTO ledger_journal (consumer_name, instance_id, message_id, message_type)"
                    + " VALUES ('ledger', 'i-1', 'm-1', 'payment.captured')");
            List<String> entries = db.shape("ledger_entries");
            List<String> journal = db.shape("ledger_journal");

            assertEquals(1, migrateLedger(db));

            assertEquals(entries, db.shape("ledger_entries"));
            assertEquals(journal, db.shape("ledger_journal"));
            assertEquals(1, db.count("SELECT count(*) FROM ledger_entries"));
            assertEquals(1, db.count("SELECT count(*) FROM ledger_journal"));
            String history = LedgerConsumer.REGISTRATION.migrationHistoryTable();
            assertEquals(
                    List.of("1|V1__ledger.sql|true"),
                    db.rows("SELECT version, script, success::text FROM " + history + " WHERE type = 'SQL'"));
            assertEquals(0, migrateLedger(db), "applied once");
        }
    }

    /** The testkit applies the ledger's scripts for tests that read its tables: the same ones. */
    @Test
    void theTestkitAppliesTheseScriptsUnderTheLedgersNames() {
        assertEquals(
                new SampleMigrations.Sample(
                        LedgerConsumer.REGISTRATION.migrations().orElseThrow(),
                        LedgerConsumer.REGISTRATION.migrationHistoryTable()),
                SampleMigrations.LEDGER);
    }

    private static int migrateLedger(ScratchDatabase db) {
        return DatabaseMigrations.migrateOwn(
                        db.dataSource(),
                        LedgerConsumer.REGISTRATION.migrations().orElseThrow(),
                        LedgerConsumer.REGISTRATION.migrationHistoryTable(),
                        LedgerHandler.class.getClassLoader())
                .migrationsExecuted;
    }
}
