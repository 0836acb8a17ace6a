package dev.outbox.persistence;

/** The database could not be reached or dropped the connection (SQL state class 08, 57P0x, pool timeout). */
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
