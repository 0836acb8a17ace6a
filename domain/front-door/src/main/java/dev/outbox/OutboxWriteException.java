package dev.outbox;

import java.sql.SQLException;

/**
 * The database refused the outbox row, or the connection failed while it was written: the
 * caller's transaction cannot commit what it meant to (PostgreSQL has aborted it already) and must
 * roll back. The cause is the driver's {@link SQLException}; {@link #sqlState()} its code (for
 * example {@code 42P01}: the outbox's tables are not in the connection's schema, {@link
 * OutboxPersistence#migrate} has not run there).
 */
public final class OutboxWriteException extends OutboxException {
    private static final long serialVersionUID = 1L;

    private final String sqlState;

    public OutboxWriteException(MessageType type, SQLException cause) {
        super(
                "the outbox row for " + type + " could not be written (SQLState " + cause.getSQLState() + ": "
                        + cause.getMessage() + "); roll the transaction back",
                cause);
        this.sqlState = cause.getSQLState();
    }

    /**
     * A failure of the stack the row was written through that carries no {@link SQLException}
     * (a statement the stack could not even send); {@link #sqlState()} is null.
     */
    public OutboxWriteException(MessageType type, RuntimeException cause) {
        super(
                "the outbox row for " + type + " could not be written (" + firstLine(cause)
                        + "); roll the transaction back",
                cause);
        this.sqlState = null;
    }

    /** A stack's message may hold the whole statement and its parameters: its first line only. */
    private static String firstLine(RuntimeException cause) {
        String m = cause.getMessage() == null ? "" : cause.getMessage().strip();
        int nl = m.indexOf('\n');
        return cause.getClass().getSimpleName()
                + (m.isEmpty() ? "" : ": " + (nl < 0 ? m : m.substring(0, nl).strip()));
    }

    /** The driver's SQLState, or null when it gave none. */
    public String sqlState() {
        return sqlState;
    }
}
