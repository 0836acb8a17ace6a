package dev.outbox.migrations;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.exception.FlywayValidateException;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

/**
 * A database an earlier release migrated (the outbox's scripts in {@code db/migration}, history in
 * {@code flyway_schema_history}) is upgraded in place by this release, which keeps its scripts in
 * {@value DatabaseMigrations#LOCATION} and its history in {@value DatabaseMigrations#HISTORY_TABLE}.
 * The earlier release is played by {@link ReleasedScripts}, a frozen copy of the scripts it
 * shipped ({@link ReleasedScriptsTest} holds them equal), applied the way it applied them, with
 * rows in every status, and a service's own script recorded in the same history as it could be.
 */
class OutboxSchemaUpgradeIT {
    private static final String RELEASED = ReleasedScripts.LOCATION;
    private static final String SERVICE_OF_THE_EARLIER_RELEASE = "classpath:released/service";
    private static final String OUTBOX_ROWS =
            "SELECT id, status, attempt_count, last_error_code, locked_by, lease_token,"
                    + " published_at, payload::text FROM message_outbox ORDER BY id";
    private static final String HISTORY_COLUMNS = "version, description, type, script, checksum, installed_on, success";

    @Test
    void aDatabaseOfTheEarlierReleaseIsAdoptedWithNothingAppliedTwice() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            migrateTheEarlierWay(db, null, SERVICE_OF_THE_EARLIER_RELEASE);
            writeRowsInEveryStatus(db);
            List<String> rowsBefore = db.rows(OUTBOX_ROWS);
            List<String> earlierHistory = db.rows("SELECT * FROM flyway_schema_history ORDER BY installed_rank");
            List<String> outboxPart = db.rows("SELECT " + HISTORY_COLUMNS
                    + " FROM flyway_schema_history WHERE script NOT LIKE '%service%' ORDER BY installed_rank");
            assertEquals(DatabaseMigrations.EARLIER_SCRIPTS.size(), outboxPart.size());

            MigrateResult upgrade = DatabaseMigrations.migrate(db.dataSource());

            assertEquals(
                    laterScripts(db),
                    upgrade.migrationsExecuted,
                    "V1 to V16 were applied by the earlier release: only scripts above them run");
            assertEquals(
                    outboxPart,
                    db.rows("SELECT " + HISTORY_COLUMNS + " FROM outbox_schema_history WHERE version::int <= 16"
                            + " ORDER BY installed_rank"),
                    "the outbox's history is carried over as it was: versions, checksums, when each ran");
            assertEquals(
                    earlierHistory,
                    db.rows("SELECT * FROM flyway_schema_history ORDER BY installed_rank"),
                    "Flyway's default history, the service's script in it, is left as it was");
            assertEquals(rowsBefore, db.rows(OUTBOX_ROWS), "every row in every status is as it was");
            assertEquals(0, db.outboxPending(), "nothing of the outbox's is left to apply");

            assertEquals(0, DatabaseMigrations.migrate(db.dataSource()).migrationsExecuted);
            assertEquals(outboxPart.size() + laterScripts(db), db.count("SELECT count(*) FROM outbox_schema_history"));
            assertEquals(
                    0,
                    migrateTheEarlierWay(db, null, SERVICE_OF_THE_EARLIER_RELEASE),
                    "a process of the earlier release restarting during the rollout still starts");
        }
    }

    /**
     * A database behind the previous release (at V15, the previous release ships V16): processes of
     * that release may be starting beside this one and applying V16 the earlier way. So this
     * release completes the earlier history the earlier way first, under the same table's lock,
     * and carries the complete history over: V16 is applied once, and recorded in both.
     */
    @Test
    void aDatabaseAtFifteenGetsSixteenOnceTheEarlierWayThenCarriedOver() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            migrateTheEarlierWay(db, "15");
            // the service's script landed after V15, numbered past the outbox's: V16 now comes out of order
            serviceFlyway(db).ignoreMigrationPatterns("*:missing").load().migrate();
            writeRowsInEveryStatus(db);
            List<String> rowsBefore = db.rows(OUTBOX_ROWS);
            assertFalse(statusCheck(db).contains("A-Z0-9_"), "V15's check names the statuses: " + statusCheck(db));

            MigrateResult upgrade = DatabaseMigrations.migrate(db.dataSource());

            assertEquals(1 + laterScripts(db), upgrade.migrationsExecuted);
            assertEquals(
                    List.of("16|V16__codes_as_text.sql"),
                    db.rows("SELECT version, script FROM outbox_schema_history WHERE version = '16'"));
            assertEquals(
                    List.of("16|V16__codes_as_text.sql"),
                    db.rows("SELECT version, script FROM flyway_schema_history WHERE version::int BETWEEN 16 AND 99"),
                    "applied the earlier way, once");
            assertEquals(
                    1,
                    db.count("SELECT count(*) FROM flyway_schema_history WHERE script = 'V100__service_notes.sql'"),
                    "the service's row stays where it was");
            assertTrue(statusCheck(db).contains("A-Z0-9_"), "V16's check holds the form: " + statusCheck(db));
            assertEquals(rowsBefore, db.rows(OUTBOX_ROWS));
            assertEquals(0, db.outboxPending());
            assertEquals(0, migrateTheEarlierWay(db, null, SERVICE_OF_THE_EARLIER_RELEASE), "nothing left for it");
        }
    }

    @Test
    void aDatabaseFarBehindIsCaughtUpTheEarlierWayThenCarriedOver() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            migrateTheEarlierWay(db, "10");

            MigrateResult upgrade = DatabaseMigrations.migrate(db.dataSource());

            assertEquals(DatabaseMigrations.EARLIER_SCRIPTS.size() - 10 + laterScripts(db), upgrade.migrationsExecuted);
            List<String> earlier =
                    db.rows("SELECT version, checksum FROM flyway_schema_history ORDER BY installed_rank");
            assertEquals(DatabaseMigrations.EARLIER_SCRIPTS.size(), earlier.size());
            assertEquals(
                    earlier,
                    db.rows("SELECT version, checksum FROM outbox_schema_history WHERE version::int <= 16"
                            + " ORDER BY installed_rank"),
                    "the complete history, carried over");
            assertEquals(0, db.outboxPending());
            assertEquals(0, migrateTheEarlierWay(db, null), "an earlier-release process finds nothing to apply");
        }
    }

    /**
     * A service of the earlier releases whose own Flyway shared {@code flyway_schema_history} with
     * the outbox (its script in Flyway's default location, numbered past the outbox's) no longer
     * resolves the outbox's scripts there. Its Flyway then refuses the outbox's rows as applied
     * scripts it lacks, until it ignores missing ones, or the rows go once no earlier release runs:
     * the two ways migrations/README.md, "Upgrading from flyway_schema_history", gives.
     */
    @Test
    void aServiceThatSharedTheEarlierHistoryIgnoresTheOutboxsRowsThere() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            migrateTheEarlierWay(db, null, SERVICE_OF_THE_EARLIER_RELEASE);
            DatabaseMigrations.migrate(db.dataSource());

            var refused = assertThrows(
                    FlywayValidateException.class,
                    () -> serviceFlyway(db).load().migrate());
            assertTrue(refused.getMessage().contains("not resolved locally"), refused.getMessage());
            assertEquals(
                    0,
                    serviceFlyway(db)
                            .ignoreMigrationPatterns("*:missing")
                            .load()
                            .migrate()
                            .migrationsExecuted);

            db.execute("DELETE FROM flyway_schema_history WHERE script IN (SELECT script FROM outbox_schema_history)");
            assertEquals(0, serviceFlyway(db).load().migrate().migrationsExecuted);
            assertEquals(
                    List.of("100|V100__service_notes.sql"),
                    db.rows("SELECT version, script FROM flyway_schema_history"));
            assertEquals(
                    0,
                    DatabaseMigrations.migrate(db.dataSource()).migrationsExecuted,
                    "the outbox's own history stands");
        }
    }

    private static FluentConfiguration serviceFlyway(ScratchDatabase db) {
        return Flyway.configure(OutboxSchemaUpgradeIT.class.getClassLoader())
                .dataSource(db.dataSource("service"))
                .locations(SERVICE_OF_THE_EARLIER_RELEASE);
    }

    /**
     * Two processes of this release start on an earlier database at once (an API and a relay): both
     * are held at the earlier history's lock, as behind a migrating process of the earlier release,
     * so both are inside the adoption together when it is let go. One carries the history over; the
     * other finds it there, and both start.
     */
    @Test
    void twoProcessesStartingTogetherAdoptTheDatabaseOnce() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            migrateTheEarlierWay(db, null);
            List<CompletableFuture<MigrateResult>> starts = new ArrayList<>();
            try (Connection holder = db.dataSource("holder").getConnection();
                    Statement s = holder.createStatement()) {
                long lock = DatabaseMigrations.flywayLockKey("public", DatabaseMigrations.EARLIER_HISTORY_TABLE);
                s.execute("SELECT pg_advisory_lock(" + lock + ")");
                for (String process : List.of("outbox-api-migrations", "outbox-relay-migrations")) {
                    DataSource ds = db.dataSource(process);
                    starts.add(CompletableFuture.supplyAsync(() -> DatabaseMigrations.migrate(ds)));
                }
                awaitWaiters(db, 2);
                s.execute("SELECT pg_advisory_unlock(" + lock + ")");
            }
            int executed = 0;
            for (CompletableFuture<MigrateResult> start : starts) {
                executed += start.get(60, TimeUnit.SECONDS).migrationsExecuted;
            }
            assertEquals(laterScripts(db), executed, "only the scripts above V16, once");
            assertEquals(
                    DatabaseMigrations.EARLIER_SCRIPTS.size() + laterScripts(db),
                    db.count("SELECT count(*) FROM outbox_schema_history"),
                    "carried over once");
            assertEquals(0, db.outboxPending());
        }
    }

    /**
     * A process whose migration holds Flyway's lock on the earlier history and never lets go (here
     * the test holds it): the adoption stops the start after its wait with a message naming the
     * lock, and records nothing, rather than hanging until the socket timeout.
     */
    @Test
    void aLockHolderThatHangsStopsTheAdoptionAfterItsWait() throws Exception {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            migrateTheEarlierWay(db, null);
            try (Connection holder = db.dataSource("holder").getConnection();
                    Statement s = holder.createStatement()) {
                long lock = DatabaseMigrations.flywayLockKey("public", DatabaseMigrations.EARLIER_HISTORY_TABLE);
                s.execute("SELECT pg_advisory_lock(" + lock + ")");

                IllegalStateException stopped = assertThrows(
                        IllegalStateException.class,
                        () -> DatabaseMigrations.adoptEarlierHistory(db.dataSource(), Duration.ofSeconds(1)));

                assertTrue(stopped.getMessage().contains("lock on public.flyway_schema_history"), stopped.getMessage());
                assertFalse(db.tableExists(DatabaseMigrations.HISTORY_TABLE));
            }
            assertEquals(
                    DatabaseMigrations.EARLIER_SCRIPTS.size(),
                    DatabaseMigrations.adoptEarlierHistory(db.dataSource()),
                    "once the lock is free, the adoption goes through");
        }
    }

    @Test
    void anEarlierHistoryWithoutTheOutboxsTablesIsRefusedAndNothingIsRecorded() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            migrateTheEarlierWay(db, null);
            db.execute("DROP TABLE message_outbox CASCADE");

            IllegalStateException refused =
                    assertThrows(IllegalStateException.class, () -> DatabaseMigrations.migrate(db.dataSource()));

            assertTrue(refused.getMessage().contains("message_outbox does not exist"), refused.getMessage());
            assertFalse(
                    db.tableExists(DatabaseMigrations.HISTORY_TABLE), "a refused adoption leaves no history behind");
        }
    }

    @Test
    void anEmptyDatabaseGetsTheOutboxsTablesAndItsOwnHistoryOnly() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            int scripts = db.outboxPending();
            MigrateResult result = DatabaseMigrations.migrate(db.dataSource());

            assertEquals(scripts, result.migrationsExecuted);
            assertTrue(db.tableExists("message_outbox"));
            assertFalse(
                    db.tableExists("flyway_schema_history"), "Flyway's default history stays the service's to make");
            assertEquals(0, db.outboxPending());
        }
    }

    /** The outbox's scripts above V16 (V17 on) its history holds: what an upgrade applies besides adopting. */
    private static int laterScripts(ScratchDatabase db) {
        return (int) db.count("SELECT count(*) FROM outbox_schema_history WHERE success AND version::int > 16");
    }

    private static int migrateTheEarlierWay(ScratchDatabase db, String target, String... moreLocations) {
        List<String> locations = new ArrayList<>(List.of(RELEASED));
        locations.addAll(List.of(moreLocations));
        var flyway = Flyway.configure(OutboxSchemaUpgradeIT.class.getClassLoader())
                .dataSource(db.dataSource("earlier-release"))
                .locations(locations.toArray(String[]::new));
        if (target != null) {
            flyway.target(target);
        }
        return flyway.load().migrate().migrationsExecuted;
    }

    /** One row in each status the earlier release writes, each a valid row of its kind. */
    private static void writeRowsInEveryStatus(ScratchDatabase db) {
        String columns =
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload, status, attempt_count, last_error_code, last_error_message,"
                        + " locked_at, locked_by, lease_token, published_at, cancelled_at) VALUES ";
        db.execute(columns
                + String.join(
                        ", ",
                        row(1, "PENDING", 0, null, null),
                        row(2, "IN_PROGRESS", 1, null, "now(), 'relay-a', 7, null"),
                        row(3, "PUBLISHED", 1, null, "null, null, null, now()"),
                        row(4, "RETRYABLE_FAILED", 2, "BROKER_UNAVAILABLE", null),
                        row(5, "PARKED", 5, "EXCHANGE_NOT_FOUND", null),
                        row(6, "CANCELLED", 0, "OPERATOR", null)));
    }

    private static String row(int n, String status, int attempts, String code, String leaseAndPublished) {
        return "('00000000-0000-0000-0000-00000000000" + n + "', 'Order', 'order-" + n + "', 1, 'OrderPlaced',"
                + " 'orders.events', 'order.placed', '{\"n\": " + n + "}', '" + status + "', " + attempts + ", "
                + (code == null ? "null, null" : "'" + code + "', 'why " + n + "'") + ", "
                + (leaseAndPublished == null ? "null, null, null, null" : leaseAndPublished) + ", "
                + (status.equals("CANCELLED") ? "now()" : "null") + ")";
    }

    private static String statusCheck(ScratchDatabase db) {
        return db.rows(
                        "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'message_outbox_status_check'")
                .get(0);
    }

    /** Until {@code n} sessions wait for an advisory lock: the processes are inside their adoption. */
    private static void awaitWaiters(ScratchDatabase db, int n) {
        String waiting = "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                + " WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name LIKE 'outbox-%'"
                + " AND a.datname = current_database()";
        await().atMost(Duration.ofSeconds(30)).until(() -> db.count(waiting) == n);
    }
}
