package dev.outbox.persistence;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.migrations.DatabaseMigrations;
import java.time.Duration;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's database: the pool, a bounded wait for PostgreSQL at start-up, the migrations,
 * and the Guice module for MyBatis. Closing it closes the pool.
 */
public final class Database implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Database.class);

    private final DatabaseConfig config;
    private final HikariDataSource dataSource;

    private Database(DatabaseConfig config, HikariDataSource dataSource) {
        this.config = config;
        this.dataSource = dataSource;
    }

    /**
     * Opens the pool and waits up to {@link DatabaseConfig#startupWait()} for the database.
     *
     * @throws DatabaseUnavailableException when it never answered: a configured URL that does
     *     not work is a start-up error, never a reason to fall back to anything else
     */
    public static Database start(DatabaseConfig config, boolean migrate) {
        HikariDataSource ds = DataSources.create(config);
        try {
            DataSources.awaitAvailable(ds, config.startupWait());
            if (migrate) {
                var result = DatabaseMigrations.migrate(DataSources.forMigrations(config));
                LOG.info(
                        "database {} at schema version {} ({} migration(s) applied now)",
                        config.url(),
                        result.targetSchemaVersion == null ? "current" : result.targetSchemaVersion,
                        result.migrationsExecuted);
            }
            return new Database(config, ds);
        } catch (RuntimeException e) {
            ds.close();
            throw e;
        }
    }

    /**
     * Applies migrations of a consumer's own ({@link DatabaseMigrations#migrateOwn}) over a
     * connection of their own, like the product's.
     */
    public void migrateOwn(String location, String historyTable, ClassLoader loader) {
        var result = DatabaseMigrations.migrateOwn(DataSources.forMigrations(config), location, historyTable, loader);
        LOG.info(
                "{} at version {} ({} migration(s) applied now, history in {})",
                location,
                result.targetSchemaVersion == null ? "current" : result.targetSchemaVersion,
                result.migrationsExecuted,
                historyTable);
    }

    /** How long {@link #ping}'s validity test may wait for the server. */
    static final Duration PING_VALIDITY = Duration.ofSeconds(2);

    /**
     * The longest {@link #ping} takes, and so a readiness check: a pooled connection, waited for up
     * to the connect timeout when all are borrowed, then its validity test.
     */
    public static Duration pingBound(DatabaseConfig config) {
        return config.connectTimeout().plus(PING_VALIDITY);
    }

    /** "UP", or "DOWN: why", checked with a pooled connection's validity test. */
    public String ping() {
        try (java.sql.Connection c = dataSource.getConnection()) {
            return c.isValid((int) PING_VALIDITY.toSeconds()) ? "UP" : "DOWN: connection not valid";
        } catch (java.sql.SQLException e) {
            return "DOWN: " + e.getClass().getSimpleName() + (e.getSQLState() == null ? "" : " " + e.getSQLState());
        }
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public DatabaseConfig config() {
        return config;
    }

    public PersistenceModule module(Class<?>... extraMappers) {
        return new PersistenceModule(dataSource, config.statementTimeout(), extraMappers);
    }

    /**
     * The longest {@link #close} takes: HikariCP waits for a connection it is opening (bounded by
     * the connect timeout, rounded up to its login timeout's whole second); closing the others only
     * closes their sockets. Nothing borrows from the pool by then: each process stops its users first.
     */
    public static Duration closeBound(DatabaseConfig config) {
        return config.connectTimeout().plusSeconds(1);
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
