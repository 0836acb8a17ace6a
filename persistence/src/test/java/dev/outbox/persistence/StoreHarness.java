package dev.outbox.persistence;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.testkit.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The persistence layer over the test database, as a store IT needs it: a pool of its own (named
 * for the test in {@code pg_stat_activity}), the persistence module's injector, and an empty
 * outbox before each test. Register it static:
 * {@code @RegisterExtension static final StoreHarness STORE = new StoreHarness("outbox-store-it", 8);}
 */
final class StoreHarness implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    static final TestDatabase DB = TestDatabase.get();

    private final String applicationName;
    private final int poolSize;
    private HikariDataSource pool;
    private Injector injector;

    StoreHarness(String applicationName, int poolSize) {
        this.applicationName = applicationName;
        this.poolSize = poolSize;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        pool = DataSources.create(DatabaseConfig.of(DB.url(), DB.user(), DB.password(), applicationName)
                .withPoolSize(poolSize));
        injector = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30)));
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        DB.reset();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        pool.close();
    }

    /** What the persistence module builds: the store, the registry, the session factory. */
    <T> T get(Class<T> type) {
        return injector.getInstance(type);
    }

    HikariDataSource pool() {
        return pool;
    }

    /** The connection settings of this test's database, for a connection of the test's own. */
    DatabaseConfig config() {
        return DatabaseConfig.of(DB.url(), DB.user(), DB.password(), applicationName);
    }
}
