package dev.outbox.migrations;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies the SQL in {@code db/migration}. Safe to call from several processes at once: Flyway
 * takes a PostgreSQL advisory lock while it migrates, so the API and relay can both run it at
 * start-up.
 */
public final class DatabaseMigrations {
    public static final String LOCATION = "classpath:db/migration";

    private DatabaseMigrations() {}

    public static MigrateResult migrate(DataSource dataSource) {
        return Flyway.configure(DatabaseMigrations.class.getClassLoader())
                .dataSource(dataSource)
                .locations(LOCATION)
                .failOnMissingLocations(true)
                .validateMigrationNaming(true)
                .load()
                .migrate();
    }

    /**
     * Applies a service's or consumer's own migrations from {@code location}, with a history table
     * of their own beside the outbox's {@code flyway_schema_history}: the first run baselines an
     * existing schema at version 0, so their {@code V1__} applies on a database the outbox already
     * migrated. The same advisory lock makes it safe from several processes at once.
     *
     * @param loader the class loader that sees {@code location} (the consumer's jar)
     */
    public static MigrateResult migrateOwn(
            DataSource dataSource, String location, String historyTable, ClassLoader loader) {
        return Flyway.configure(loader)
                .dataSource(dataSource)
                .locations(location)
                .table(historyTable)
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .failOnMissingLocations(true)
                .validateMigrationNaming(true)
                .load()
                .migrate();
    }
}
