package dev.outbox;

import com.google.inject.Module;
import dev.outbox.spi.OutboxPersistenceProvider;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import javax.sql.DataSource;

/**
 * Setting the outbox up in a service of your own: its schema, and the MyBatis-Guice module that
 * puts your mappers and the outbox's in one session factory, so that one {@code @Transactional}
 * method writes both. The service keeps its own tables and its own migration history.
 *
 * <p>The implementation ({@code dev.outbox:outbox-persistence}, a run-time dependency) is found
 * on the classpath; a service compiles against this module alone. The module binds {@link Outbox}
 * and a default {@link java.time.Clock} (UTC) for its timestamps and ids; a service that wants
 * another clock sets it with Guice's {@code OptionalBinder.newOptionalBinder(binder(),
 * Clock.class).setBinding()}.
 */
public final class OutboxPersistence {
    private OutboxPersistence() {}

    /**
     * Creates or upgrades the outbox's tables (Flyway, scripts in {@code db/outbox}, history in
     * {@code outbox_schema_history}), and only the outbox's: on a new database one baseline script
     * makes them beside whatever the schema holds. Flyway's defaults, {@code db/migration} and {@code
     * flyway_schema_history}, stay free for the service's own migrations, run with {@code
     * baselineOnMigrate(true)} and {@code baselineVersion("0")}. Safe to run from several processes
     * at once.
     */
    public static void migrate(DataSource dataSource) {
        provider().migrate(dataSource);
    }

    /**
     * Registers what this process knows of its messages where every other process can read it,
     * the relay above all (started from its own jar, it has none of the service's files): every
     * message contract on the classpath ({@code contracts/<type>/v<version>.schema.json}) and every
     * queue declaration ({@code topology/<queue>.queue.json}). Call it at start, after {@link
     * #migrate}. Registering the same again changes nothing; a changed queue declaration replaces
     * the last one.
     *
     * @param registeredBy who registers, as operators should read it (the service's name)
     * @throws ContractConflictException when a contract's type and version are registered already
     *     with a different schema; then nothing is registered
     */
    public static void register(DataSource dataSource, String registeredBy) {
        provider().register(dataSource, registeredBy);
    }

    /**
     * MyBatis on Guice over {@code dataSource} with the outbox's mapper, {@link Outbox} bound, and
     * {@code serviceMappers}: install it instead of a MyBatisModule of your own.
     *
     * @param statementTimeout how long any statement may run
     */
    public static Module module(DataSource dataSource, Duration statementTimeout, Class<?>... serviceMappers) {
        return provider().module(dataSource, statementTimeout, serviceMappers);
    }

    private static OutboxPersistenceProvider provider() {
        List<OutboxPersistenceProvider> found =
                ServiceLoader.load(OutboxPersistenceProvider.class, OutboxPersistence.class.getClassLoader()).stream()
                        .map(ServiceLoader.Provider::get)
                        .toList();
        if (found.size() != 1) {
            throw new OutboxException(
                    found.isEmpty()
                            ? "no outbox implementation on the classpath: add dev.outbox:outbox-persistence as a runtime"
                                    + " dependency"
                            : "more than one outbox implementation on the classpath: " + found);
        }
        return found.get(0);
    }
}
