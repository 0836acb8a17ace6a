package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.DatabaseUnavailableException;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every database call the consumer framework makes outside a handler reaches the runner as a
 * translated {@link DataAccessException}, so a database outage is waited out (requeue) and never
 * mistaken for the message's fault. Found by {@code ops/chaos.sh}: a raw MyBatis exception from the
 * held-successor lookup, after the delivery had committed, dead-lettered an applied message.
 */
class IdempotentProcessorOutageIT {
    private final TestDatabase db = TestDatabase.get();
    private TcpProxy proxy;
    private HikariDataSource pool;
    private IdempotentProcessor processor;

    @BeforeEach
    void setUp() throws Exception {
        proxy = TcpProxy.start(db.host(), db.port());
        pool = DataSources.create(new DatabaseConfig(
                db.urlVia(proxy.host(), proxy.port()),
                db.user(),
                db.password(),
                2,
                Duration.ofMillis(500),
                Duration.ofSeconds(5),
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                "outage-it",
                false));
        processor = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(5)))
                .getInstance(IdempotentProcessor.class);
    }

    @AfterEach
    void tearDown() {
        pool.close();
        proxy.close();
    }

    @Test
    void theHeldSuccessorLookupReportsAnOutageAsATransientDatabaseFailure() {
        processor.nextHeld("outage-it", "order", "any"); // reachable: a plain read that finds nothing
        proxy.cut();
        DataAccessException e =
                assertThrows(DataAccessException.class, () -> processor.nextHeld("outage-it", "order", "any"));
        assertInstanceOf(DatabaseUnavailableException.class, e);
        assertTrue(e.isTransient());
    }
}
