package dev.outbox.migrations;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.testkit.ReleasedScripts;
import dev.outbox.testkit.ScratchDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

/**
 * A new database gets the outbox's schema from the baseline script {@code B16__outbox.sql}: object
 * for object what the released V1 to V16 make, without the order and ledger samples' tables, and
 * whatever the schema held before (nothing, or a service's own tables and history). A database
 * that ran the V scripts never runs it.
 */
class NewDatabaseSchemaIT {
    /** What the outbox's scripts made that belongs to the samples: not the outbox's to make. */
    static final List<String> SAMPLE_TABLES = List.of("orders", "order_lines", "ledger_entries", "ledger_journal");

    private static final String BASELINE = "B16__outbox.sql";

    @Test
    void aNewDatabaseGetsWhatTheReleasedScriptsMadeWithoutTheSamplesTables() {
        try (ScratchDatabase released = ScratchDatabase.create();
                ScratchDatabase fresh = ScratchDatabase.create()) {
            released.migrateAsReleased();
            released.execute("DROP TABLE " + String.join(", ", SAMPLE_TABLES));
            DatabaseMigrations.migrate(released.dataSource());
            List<String> later = new ArrayList<>(outboxHistory(released));
            later.removeAll(DatabaseMigrations.EARLIER_SCRIPTS);

            MigrateResult result = DatabaseMigrations.migrate(fresh.dataSource());

            assertEquals(1 + later.size(), result.migrationsExecuted, "the baseline script, then the later ones");
            List<String> expected = validated(released.schema());
            assertTrue(expected.size() > 100, "the comparison covers the whole schema: " + expected.size());
            assertSameSchema(expected, validated(fresh.schema()));
            assertNoSampleTable(fresh);
            List<String> history = new ArrayList<>(List.of(BASELINE));
            history.addAll(later);
            assertEquals(history, outboxHistory(fresh));
            assertFalse(fresh.tableExists("flyway_schema_history"), "Flyway's default history is the service's");
            assertEquals(0, fresh.outboxPending());
            assertEquals(0, DatabaseMigrations.migrate(fresh.dataSource()).migrationsExecuted);
        }
    }

    /**
     * On a schema that holds a service's tables and nothing of the outbox's, Flyway alone would
     * record a baseline marker and run V1 to V16, making the samples' tables; the history the
     * outbox makes for itself is the one Flyway would make, so Flyway fills it as its own.
     */
    @Test
    void aSchemaHoldingAServicesTablesGetsTheSameSchemaAndAHistoryFlywayWouldHaveMade() {
        try (ScratchDatabase byFlyway = ScratchDatabase.create();
                ScratchDatabase beside = ScratchDatabase.create()) {
            int scripts = Flyway.configure(DatabaseMigrations.class.getClassLoader())
                    .dataSource(byFlyway.dataSource())
                    .locations(DatabaseMigrations.LOCATION)
                    .table(DatabaseMigrations.HISTORY_TABLE)
                    .load()
                    .migrate()
                    .migrationsExecuted;
            beside.execute("CREATE TABLE service_things (id BIGINT PRIMARY KEY, name TEXT NOT NULL)");
            beside.execute("INSERT INTO service_things VALUES (1, 'kept')");

            assertEquals(scripts, DatabaseMigrations.migrate(beside.dataSource()).migrationsExecuted);

            assertEquals(
                    byFlyway.shape(DatabaseMigrations.HISTORY_TABLE), beside.shape(DatabaseMigrations.HISTORY_TABLE));
            List<String> outboxOnly = new ArrayList<>(beside.schema());
            outboxOnly.removeIf(line -> line.startsWith("table service_things") || line.startsWith("service_things:"));
            assertSameSchema(byFlyway.schema(), outboxOnly);
            assertEquals(List.of("1|kept"), beside.rows("SELECT id, name FROM service_things"));
            assertNoSampleTable(beside);
            assertEquals(outboxHistory(byFlyway), outboxHistory(beside));
            assertEquals(BASELINE, outboxHistory(beside).get(0));
        }
    }

    /**
     * A database this release migrated before the baseline script existed (V1 to V16 recorded in
     * {@value DatabaseMigrations#HISTORY_TABLE}, after a baseline marker at 0 when the schema held a
     * service's tables) keeps its history and its sample tables, and runs nothing.
     */
    @Test
    void aDatabaseMigratedByTheVersionedScriptsNeverRunsTheBaselineScript() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            db.execute("CREATE TABLE service_things (id BIGINT PRIMARY KEY)");
            Flyway.configure(DatabaseMigrations.class.getClassLoader())
                    .dataSource(db.dataSource())
                    .locations(ReleasedScripts.LOCATION)
                    .table(DatabaseMigrations.HISTORY_TABLE)
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    .load()
                    .migrate();
            db.execute("INSERT INTO orders (id, customer_id, status, version, currency, total, created_at, updated_at)"
                    + " VALUES (gen_random_uuid(), 'c-1', 'PLACED', 1, 'EUR', 10, now(), now())");
            List<String> history = outboxHistory(db);
            List<String> schema = db.schema();

            int executed = DatabaseMigrations.migrate(db.dataSource()).migrationsExecuted;

            List<String> after = outboxHistory(db);
            assertEquals(history, after.subList(0, history.size()), "its history is kept as it was");
            assertEquals(executed, after.size() - history.size(), "only scripts above V16 were applied");
            assertFalse(after.contains(BASELINE));
            List<String> lost = new ArrayList<>(schema);
            lost.removeAll(db.schema());
            assertEquals(List.of(), lost, "nothing of its schema changed or went");
            assertEquals(1, db.count("SELECT count(*) FROM orders"));
        }
    }

    /**
     * The processes of a new deployment start on the new database at once (an API and two relays),
     * held at the outbox history's lock so that all are inside the start together: one makes the
     * history, the others find it, and the baseline script runs once.
     */
    @Test
    void processesStartingTogetherOnANewDatabaseRunTheBaselineScriptOnce() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            db.execute("CREATE TABLE service_things (id BIGINT PRIMARY KEY)");
            List<CompletableFuture<MigrateResult>> starts = new ArrayList<>();
            try (Connection holder = db.dataSource("holder").getConnection();
                    Statement s = holder.createStatement()) {
                long lock = DatabaseMigrations.flywayLockKey("public", DatabaseMigrations.HISTORY_TABLE);
                s.execute("SELECT pg_advisory_lock(" + lock + ")");
                for (String process : List.of("outbox-api", "outbox-relay-1", "outbox-relay-2")) {
                    DataSource ds = db.dataSource(process);
                    starts.add(CompletableFuture.supplyAsync(() -> DatabaseMigrations.migrate(ds)));
                }
                awaitWaiters(db, 3);
                s.execute("SELECT pg_advisory_unlock(" + lock + ")");
            }
            int executed = 0;
            for (CompletableFuture<MigrateResult> start : starts) {
                executed += start.get(60, TimeUnit.SECONDS).migrationsExecuted;
            }
            List<String> history = outboxHistory(db);
            assertEquals(BASELINE, history.get(0));
            assertEquals(history.size(), executed, "each script applied once");
            assertNoSampleTable(db);
        }
    }

    static void assertNoSampleTable(ScratchDatabase db) {
        for (String table : SAMPLE_TABLES) {
            assertFalse(db.tableExists(table), table + " is a sample's, not the outbox's");
        }
    }

    private static List<String> outboxHistory(ScratchDatabase db) {
        return db.rows(
                "SELECT script FROM " + DatabaseMigrations.HISTORY_TABLE + " WHERE success ORDER BY installed_rank");
    }

    /**
     * The V scripts added some constraints {@code NOT VALID}, to spare a large table's scan under
     * an exclusive lock; the baseline script makes them on an empty table, validated. The
     * constraint is the same either way.
     */
    private static List<String> validated(List<String> schema) {
        return schema.stream()
                .map(line -> line.replace(" NOT VALID (not validated)", ""))
                .toList();
    }

    /** Equal, and if not, the lines only one side has: readable where the whole schema is not. */
    private static void assertSameSchema(List<String> expected, List<String> actual) {
        List<String> missing = new ArrayList<>(expected);
        missing.removeAll(actual);
        List<String> extra = new ArrayList<>(actual);
        extra.removeAll(expected);
        assertEquals(List.of(), missing, "missing from the schema");
        assertEquals(List.of(), extra, "in the schema, not expected");
        assertEquals(expected, actual);
    }

    /** Until {@code n} sessions wait for an advisory lock: the processes are inside their start. */
    private static void awaitWaiters(ScratchDatabase db, int n) {
        String waiting = "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                + " WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name LIKE 'outbox-%'"
                + " AND a.datname = current_database()";
        await().atMost(Duration.ofSeconds(30)).until(() -> db.count(waiting) == n);
    }
}
