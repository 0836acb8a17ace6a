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
}
