package dev.outbox.producer;

import com.google.inject.Module;
import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.persistence.PersistenceModule;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Setting the outbox up in a service of your own: its schema, and the MyBatis-Guice module that
 * puts your mappers and the outbox's in one session factory, so that one {@code @Transactional}
 * method writes both. The service keeps its own tables and its own migration history.
 */
public final class OutboxPersistence {
    private OutboxPersistence() {}

    /**
     * Creates or upgrades the outbox's tables (Flyway, history in {@code flyway_schema_history};
     * give your own migrations another history table). Safe to run from several processes at once.
     */
    public static void migrate(DataSource dataSource) {
        DatabaseMigrations.migrate(dataSource);
    }

    /**
     * MyBatis on Guice over {@code dataSource} with the outbox's mapper, {@link Outbox} bound, and
     * {@code serviceMappers}: install it instead of a MyBatisModule of your own.
     *
     * @param statementTimeout how long any statement may run
     */
    public static Module module(DataSource dataSource, Duration statementTimeout, Class<?>... serviceMappers) {
        return new PersistenceModule(dataSource, statementTimeout, serviceMappers);
    }
}
