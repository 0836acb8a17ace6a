package dev.outbox;

import java.sql.Connection;
import java.util.Optional;

/**
 * Where the calling thread's transaction is, on whatever stack a service keeps its transactions:
 * the one thing {@link OutboxPersistence#outbox(CurrentTransaction)} needs to give that service an
 * {@link Outbox} that writes in them. For example, with a thread-bound connection of the service's
 * own: {@code () -> Optional.ofNullable(CURRENT.get())}.
 */
@FunctionalInterface
public interface CurrentTransaction {
    /**
     * The connection of the transaction the calling thread is in, or empty outside one. The outbox
     * writes one row on it and never begins, commits, rolls back or closes it.
     */
    Optional<Connection> connection();
}
