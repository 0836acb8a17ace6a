package dev.outbox.migrations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.testkit.ScratchDatabase;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * A service that adopts the outbox keeps Flyway's defaults for itself: its own {@code V1__} in
 * {@code db/migration} ({@code db/migration/V1__service_accounts.sql} on this classpath, beside the
 * outbox's jar), its history in {@code flyway_schema_history}. Neither Flyway sees the other's
 * scripts or history, whichever runs first. The service's Flyway is configured as the adopting
 * guide says (domain/front-door/README.md, "Your own migrations").
 */
class AdoptingServiceMigrationsIT {
    private static final String SERVICE_SCRIPT = "V1__service_accounts.sql";

    @Test
    void theOutboxFirstThenTheServicesOwnV1() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            DatabaseMigrations.migrate(db.dataSource());
            assertEquals(1, serviceFlyway(db).migrate().migrationsExecuted, "the service's V1 is applied");

            assertApart(db);
        }
    }

    @Test
    void theServicesOwnV1FirstThenTheOutbox() {
        try (ScratchDatabase db = ScratchDatabase.create()) {
            assertEquals(1, serviceFlyway(db).migrate().migrationsExecuted);
            int scripts = db.outboxPending();
            int outbox = DatabaseMigrations.migrate(db.dataSource()).migrationsExecuted;

            assertEquals(scripts, outbox, "every outbox script applied");
            assertApart(db);
            assertEquals(0, serviceFlyway(db).migrate().migrationsExecuted, "the service's Flyway validates as it was");
            assertEquals(0, DatabaseMigrations.migrate(db.dataSource()).migrationsExecuted);
        }
    }

    private static Flyway serviceFlyway(ScratchDatabase db) {
        // Flyway's defaults (db/migration, flyway_schema_history) plus the two lines the guide asks
        // for: the outbox's tables may be there first, and the service's V1 must still apply
        return Flyway.configure(AdoptingServiceMigrationsIT.class.getClassLoader())
                .dataSource(db.dataSource("service"))
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load();
    }

    private static void assertApart(ScratchDatabase db) {
        assertTrue(db.tableExists("service_accounts"));
        assertTrue(db.tableExists("message_outbox"));
        assertEquals(
                List.of(SERVICE_SCRIPT),
                db.rows("SELECT script FROM flyway_schema_history WHERE type = 'SQL'"),
                "the service's history holds its own script only");
        assertEquals(
                0,
                db.count("SELECT count(*) FROM outbox_schema_history WHERE script = '" + SERVICE_SCRIPT + "'"),
                "the outbox's history never holds the service's script");
        assertEquals(0, db.outboxPending(), "the outbox's scripts are all applied");
        NewDatabaseSchemaIT.assertNoSampleTable(db);
    }
}
