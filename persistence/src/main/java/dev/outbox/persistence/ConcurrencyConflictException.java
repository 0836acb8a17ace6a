package dev.outbox.persistence;

/** Serialization failure, deadlock, or a lock that could not be had (40001, 40P01, 55P03). */
public final class ConcurrencyConflictException extends DataAccessException {
    private static final long serialVersionUID = 1L;

    public ConcurrencyConflictException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isTransient() {
        return true;
    }
}
