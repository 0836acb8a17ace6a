package dev.outbox.jdbc;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.ConnectionOutbox;
import dev.outbox.OutboxException;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.topology.QueueDeclaration;
import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.spi.JdbcOutboxProvider;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The JDBC core as {@link dev.outbox.OutboxPersistence} finds it ({@link java.util.ServiceLoader}):
 * the row's write ({@link JdbcOutbox}), Flyway for the schema ({@link DatabaseMigrations}), {@link
 * MessageRegistry} for the registration. Whatever fails here reaches the service as an {@link
 * OutboxException}: a service compiles against the front door alone and cannot catch Flyway's types.
 */
public final class JdbcOutboxes implements JdbcOutboxProvider {
    @Override
    public ConnectionOutbox connectionOutbox(Clock clock) {
        return new JdbcOutbox(clock);
    }

    @Override
    public void migrate(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        try {
            DatabaseMigrations.migrate(dataSource);
        } catch (RuntimeException e) {
            // Flyway's, the driver's or the history adoption's
            throw new OutboxException("the outbox's migrations did not complete: " + e.getMessage(), e);
        }
    }

    @Override
    public void register(DataSource dataSource, String registeredBy) {
        Objects.requireNonNull(dataSource, "dataSource");
        if (registeredBy == null || registeredBy.isBlank()) {
            throw new IllegalArgumentException("registeredBy names who registers, for operators");
        }
        try {
            registerAll(dataSource, registeredBy);
        } catch (OutboxException e) {
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
}
