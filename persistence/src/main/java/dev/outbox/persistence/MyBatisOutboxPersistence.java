package dev.outbox.persistence;

import com.google.inject.Module;
import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.spi.OutboxPersistenceProvider;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The front door's {@link dev.outbox.OutboxPersistence} on this module: Flyway for the schema,
 * {@link PersistenceModule} for MyBatis-Guice. Found through {@link java.util.ServiceLoader}.
 */
public final class MyBatisOutboxPersistence implements OutboxPersistenceProvider {
    @Override
    public void migrate(DataSource dataSource) {
        DatabaseMigrations.migrate(dataSource);
    }

    @Override
    public Module module(DataSource dataSource, Duration statementTimeout, Class<?>... serviceMappers) {
        return new PersistenceModule(dataSource, statementTimeout, serviceMappers);
    }
}
