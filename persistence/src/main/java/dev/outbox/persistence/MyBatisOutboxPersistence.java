package dev.outbox.persistence;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.inject.Module;
import dev.outbox.OutboxException;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.topology.QueueDeclaration;
import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.persistence.registry.MessageRegistry;
import dev.outbox.spi.OutboxPersistenceProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The front door's {@link dev.outbox.OutboxPersistence} on this module: Flyway for the schema,
 * {@link MessageRegistry} for the registration, {@link PersistenceModule} for MyBatis-Guice. Found through {@link java.util.ServiceLoader}.
 */
public final class MyBatisOutboxPersistence implements OutboxPersistenceProvider {
    @Override
    public void migrate(DataSource dataSource) {
        try {
            DatabaseMigrations.migrate(dataSource);
        } catch (OutboxException e) {
            throw e;
        } catch (RuntimeException e) {
            // Flyway's, the driver's or the history adoption's: the service sees the front door's family
            throw new OutboxException("the outbox's migrations did not complete: " + e.getMessage(), e);
        }
    }

    @Override
    public void register(DataSource dataSource, String registeredBy) {
        try {
            registerAll(dataSource, registeredBy);
        } catch (OutboxException | IllegalArgumentException | NullPointerException e) {
            throw e;
        } catch (RuntimeException e) {
            // a contract or topology file of the service's that does not parse, say
            throw new OutboxException("registering this service's contracts and queues failed: " + e.getMessage(), e);
        }
    }

    private static void registerAll(DataSource dataSource, String registeredBy) {
        BrokerTopology topology = BrokerTopology.onClasspath();
        List<ObjectNode> queues = new ArrayList<>();
        for (QueueDeclaration queue : topology.queues()) {
            queues.add(topology.document(queue.name()).orElseThrow());
        }
        // one transaction: a refused contract leaves the service's queues unwritten too
        new MessageRegistry(dataSource).register(MessageContracts.onClasspath().all(), queues, registeredBy);
    }

    @Override
    public Module module(DataSource dataSource, Duration statementTimeout, Class<?>... serviceMappers) {
        return new PersistenceModule(dataSource, statementTimeout, serviceMappers);
    }

    @Override
    public Module myBatisGuice() {
        return dev.outbox.persistence.outbox.MyBatisOutbox.besideAServicesMyBatisModule();
    }
}
