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
                        + firstLine(cause.getMessage()) + "); roll the transaction back",
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

    /**
     * A failure's first line: the driver's next lines quote the refused row ("Failing row contains
     * ..."), payload included, and a stack's its whole statement with the parameters; the cause
     * keeps them for whoever needs them.
     */
    private static String firstLine(String message) {
        String m = message == null ? "" : message.strip();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl).strip();
    }

    private static String firstLine(RuntimeException cause) {
        String m = firstLine(cause.getMessage());
        return cause.getClass().getSimpleName() + (m.isEmpty() ? "" : ": " + m);
    }

    /** The driver's SQLState, or null when it gave none. */
    public String sqlState() {
        return sqlState;
    }
}
