package dev.outbox;

import com.google.inject.Module;
import dev.outbox.spi.JdbcOutboxProvider;
import dev.outbox.spi.OutboxPersistenceProvider;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import javax.sql.DataSource;

/**
 * Setting the outbox up in a service of your own, on whatever transaction stack it has: its
 * schema ({@link #migrate}), its contracts where the relay reads them ({@link #register}), and an
 * {@link Outbox} that writes in the service's own transaction (plain JDBC: {@link #jdbc}; a stack
 * of its own: {@link #outbox(CurrentTransaction)}; MyBatis-Guice: {@link #myBatisGuice} beside the
 * service's module, or {@link #module} instead of it). The service keeps its own tables and its
 * own migration history.
 *
 * <p>The implementations are found on the classpath at run time: {@code dev.outbox:outbox-jdbc}
 * for the schema, the registry and the JDBC write, {@code dev.outbox:outbox-persistence} for the
 * MyBatis-Guice modules. A service compiles against this module alone. {@link #module} binds {@link Outbox}
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
     *
     * @throws OutboxException when the migrations did not complete (the database unreachable, a
     *     script refused); its cause is Flyway's or the driver's failure
     */
    public static void migrate(DataSource dataSource) {
        jdbcCore().migrate(dataSource);
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
     * @throws OutboxException when the registry could not be read or written, or a contract or
     *     topology file on the classpath does not parse; then nothing is registered
     */
    public static void register(DataSource dataSource, String registeredBy) {
        jdbcCore().register(dataSource, registeredBy);
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

    /**
     * The MyBatis-Guice adapter, for a service that has its own {@code MyBatisModule}: install it
     * beside that module (it binds {@link Outbox} alone, and adds the outbox's one insert statement
     * to that module's configuration) and {@link
     * Outbox#record} writes on the connection of the service's {@code @Transactional} method. The
     * service's mappers, their statements and their exceptions stay the service's own.
     */
    public static Module myBatisGuice() {
        return provider().myBatisGuice();
    }

    /**
     * The outbox on plain JDBC: it records on a connection the caller passes, in the transaction
     * the caller began on it ({@code outbox-jdbc} on the run-time classpath). Message ids and
     * timestamps from the system clock, in UTC.
     */
    public static ConnectionOutbox jdbc() {
        return jdbc(Clock.systemUTC());
    }

    /** As {@link #jdbc()}, message ids and timestamps from {@code clock}. */
    public static ConnectionOutbox jdbc(Clock clock) {
        return jdbcCore().connectionOutbox(clock);
    }

    /**
     * An {@link Outbox} for a transaction stack of the service's own: each {@link Outbox#record}
     * writes on the connection {@code transactions} names for the calling thread, and is refused
     * ({@link OutsideTransactionException}) where it names none.
     */
    public static Outbox outbox(CurrentTransaction transactions) {
        return outbox(transactions, Clock.systemUTC());
    }

    /** As {@link #outbox(CurrentTransaction)}, message ids and timestamps from {@code clock}. */
    public static Outbox outbox(CurrentTransaction transactions, Clock clock) {
        ConnectionOutbox jdbc = jdbc(clock);
        return (type, aggregate, payload, context) -> jdbc.record(
                transactions.connection().orElseThrow(() -> new OutsideTransactionException(type)),
                type,
                aggregate,
                payload,
                context);
    }

    private static JdbcOutboxProvider jdbcCore() {
        return load(JdbcOutboxProvider.class, "outbox-jdbc");
    }

    private static OutboxPersistenceProvider provider() {
        return load(OutboxPersistenceProvider.class, "outbox-persistence");
    }

    private static <T> T load(Class<T> spi, String artifact) {
        List<T> found = ServiceLoader.load(spi, OutboxPersistence.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::get)
                .toList();
        if (found.size() != 1) {
            throw new OutboxException(
                    found.isEmpty()
                            ? "no " + spi.getSimpleName() + " on the classpath: add dev.outbox:" + artifact
                                    + " as a runtime dependency"
                            : "more than one " + spi.getSimpleName() + " on the classpath: " + found);
        }
        return found.get(0);
    }
}
