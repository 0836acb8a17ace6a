package dev.outbox.persistence;

/**
 * The database could not be reached or dropped the connection (SQL state class 08, 57P0x, 53300,
 * 25006 from a read-only standby, no pooled connection in time): not the statement's fault, so a
 * caller may wait it out without counting it against the work it tried.
 */
public final class DatabaseUnavailableException extends DataAccessException {
    private static final long serialVersionUID = 1L;

    public DatabaseUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isTransient() {
        return true;
    }
}
