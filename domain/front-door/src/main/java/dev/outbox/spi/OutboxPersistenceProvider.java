package dev.outbox.spi;

import com.google.inject.Module;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * What {@link dev.outbox.OutboxPersistence} hands its calls to: the implementation on the run-time
 * classpath ({@code outbox-persistence} registers one through {@link java.util.ServiceLoader}).
 * Not for services to call or implement; it lets them compile against the front door alone.
 */
public interface OutboxPersistenceProvider {
    Module module(DataSource dataSource, Duration statementTimeout, Class<?>... serviceMappers);

    /** The adapter a service installs beside its own {@code MyBatisModule}. */
    Module myBatisGuice();
}
