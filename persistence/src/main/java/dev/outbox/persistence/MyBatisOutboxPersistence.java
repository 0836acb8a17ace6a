package dev.outbox.persistence;

import com.google.inject.Module;
import dev.outbox.spi.OutboxPersistenceProvider;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The front door's MyBatis-Guice modules on this module: {@link PersistenceModule}, and the adapter
 * beside a service's own {@code MyBatisModule}. Found through {@link java.util.ServiceLoader}; the
 * schema and the registry are the JDBC core's ({@code outbox-jdbc}).
 */
public final class MyBatisOutboxPersistence implements OutboxPersistenceProvider {
    @Override
    public Module module(DataSource dataSource, Duration statementTimeout, Class<?>... serviceMappers) {
        return new PersistenceModule(dataSource, statementTimeout, serviceMappers);
    }

    @Override
    public Module myBatisGuice() {
        return dev.outbox.persistence.outbox.MyBatisOutbox.besideAServicesMyBatisModule();
    }
}
