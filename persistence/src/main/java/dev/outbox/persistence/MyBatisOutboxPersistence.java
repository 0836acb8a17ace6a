package dev.outbox.persistence;

import com.google.inject.Module;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.topology.QueueDeclaration;
import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.persistence.registry.MessageRegistry;
import dev.outbox.spi.OutboxPersistenceProvider;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The front door's {@link dev.outbox.OutboxPersistence} on this module: Flyway for the schema,
 * {@link MessageRegistry} for the registration, {@link PersistenceModule} for MyBatis-Guice. Found through {@link java.util.ServiceLoader}.
 */
public final class MyBatisOutboxPersistence implements OutboxPersistenceProvider {
    @Override
    public void migrate(DataSource dataSource) {
        DatabaseMigrations.migrate(dataSource);
    }

    @Override
    public void register(DataSource dataSource, String registeredBy) {
        MessageRegistry registry = new MessageRegistry(dataSource);
        registry.registerContracts(MessageContracts.onClasspath().all(), registeredBy);
        BrokerTopology topology = BrokerTopology.onClasspath();
        for (QueueDeclaration queue : topology.queues()) {
            registry.registerQueue(topology.document(queue.name()).orElseThrow(), registeredBy);
        }
    }

    @Override
    public Module module(DataSource dataSource, Duration statementTimeout, Class<?>... serviceMappers) {
        return new PersistenceModule(dataSource, statementTimeout, serviceMappers);
    }
}
