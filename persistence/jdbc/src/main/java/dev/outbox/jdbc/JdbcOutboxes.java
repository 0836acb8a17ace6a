package dev.outbox.jdbc;

import dev.outbox.ConnectionOutbox;
import dev.outbox.spi.JdbcOutboxProvider;
import java.time.Clock;

/** The JDBC core as {@link dev.outbox.OutboxPersistence#jdbc} finds it ({@link java.util.ServiceLoader}). */
public final class JdbcOutboxes implements JdbcOutboxProvider {
    @Override
    public ConnectionOutbox connectionOutbox(Clock clock) {
        return new JdbcOutbox(clock);
    }
}
