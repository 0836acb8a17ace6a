package dev.outbox.spi;

import dev.outbox.ConnectionOutbox;
import java.time.Clock;
import javax.sql.DataSource;

/**
 * What {@link dev.outbox.OutboxPersistence} hands its JDBC calls to (the row's write, the schema,
 * the registry): the JDBC core on the run-time classpath ({@code outbox-jdbc} registers one
 * through {@link java.util.ServiceLoader}), so a service on any transaction stack sets the outbox
 * up without MyBatis. Not for services to call or implement.
 */
public interface JdbcOutboxProvider {
    /** An outbox writing on the caller's connection, its message ids and timestamps from {@code clock}. */
    ConnectionOutbox connectionOutbox(Clock clock);

    /** {@link dev.outbox.OutboxPersistence#migrate}. */
    void migrate(DataSource dataSource);

    /** {@link dev.outbox.OutboxPersistence#register}. */
    void register(DataSource dataSource, String registeredBy);
}
