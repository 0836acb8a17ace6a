package dev.outbox.spi;

import dev.outbox.ConnectionOutbox;
import java.time.Clock;

/**
 * What {@link dev.outbox.OutboxPersistence#jdbc} hands its calls to: the JDBC core on the run-time
 * classpath ({@code outbox-jdbc} registers one through {@link java.util.ServiceLoader}). Not for
 * services to call or implement.
 */
public interface JdbcOutboxProvider {
    /** An outbox writing on the caller's connection, its message ids and timestamps from {@code clock}. */
    ConnectionOutbox connectionOutbox(Clock clock);
}
