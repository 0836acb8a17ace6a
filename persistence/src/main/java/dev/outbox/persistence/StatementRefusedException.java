package dev.outbox.persistence;

/**
 * The database is reachable but did not run this statement to the end: it ran past the statement
 * timeout (57014), or the server lacked memory, disk or another resource for it (class 53, except
 * 53300, which is raised when a connection is refused and means the database cannot be reached).
 *
 * <p>Transient, so the API answers 503 and a caller may try again later; but unlike
 * {@link DatabaseUnavailableException} it may be the statement's own doing (a handler that
 * always runs too long, a batch too large for the server's memory), so a caller that retries
 * must bound its retries instead of waiting for the database to come back.
 */
public final class StatementRefusedException extends DataAccessException {
    private static final long serialVersionUID = 1L;

    public StatementRefusedException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isTransient() {
        return true;
    }
}
