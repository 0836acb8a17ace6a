package dev.outbox.spring;

import dev.outbox.Outbox;
import dev.outbox.OutboxPersistence;
import java.sql.Connection;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The outbox in Spring's transactions: an {@link Outbox} whose {@link Outbox#record} writes on the
 * connection Spring's current transaction holds for a {@link DataSource}, whether a
 * {@code @Transactional} method or a {@code TransactionTemplate} began it, under a {@code
 * DataSourceTransactionManager} or {@code JdbcTransactionManager} (or a JPA transaction manager
 * that exposes its JDBC connection, as Hibernate's does). The message row commits and rolls back
 * with everything else that transaction writes; the outbox begins, commits, rolls back and releases
 * nothing.
 *
 * <pre>
 * &#64;Bean
 * Outbox outbox(DataSource dataSource) {
 *     return SpringOutbox.on(dataSource);
 * }
 * </pre>
 *
 * Outside a transaction on that data source (none active, {@code SUPPORTS} or {@code
 * NOT_SUPPORTED} propagation, a transaction on another data source) {@code record} is refused with
 * {@link dev.outbox.OutsideTransactionException} and writes nothing.
 */
public final class SpringOutbox {
    private SpringOutbox() {}

    /**
     * The outbox on {@code dataSource}: the one the transaction manager was given (a {@link
     * TransactionAwareDataSourceProxy} over it is read through). Ids and timestamps from the
     * system clock, in UTC.
     */
    public static Outbox on(DataSource dataSource) {
        return on(dataSource, Clock.systemUTC());
    }

    /** As {@link #on(DataSource)}, ids and timestamps from {@code clock}. */
    public static Outbox on(DataSource dataSource, Clock clock) {
        DataSource target = target(Objects.requireNonNull(dataSource, "dataSource"));
        return OutboxPersistence.outbox(() -> transactionConnection(target), clock);
    }

    /** The connection Spring's transaction holds for {@code dataSource} on this thread, if one does. */
    static Optional<Connection> transactionConnection(DataSource dataSource) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return Optional.empty();
        }
        // the holder the transaction manager bound at begin: where there is none (the transaction is
        // on another data source) DataSourceUtils would open a connection of its own, in auto-commit
        return TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder
                        && holder.isSynchronizedWithTransaction()
                ? Optional.of(DataSourceUtils.getConnection(dataSource))
                : Optional.empty();
    }

    private static DataSource target(DataSource dataSource) {
        return dataSource instanceof TransactionAwareDataSourceProxy proxy ? proxy.getTargetDataSource() : dataSource;
    }
}
