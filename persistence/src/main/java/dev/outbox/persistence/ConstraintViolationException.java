package dev.outbox.persistence;

/** An integrity constraint refused the write (SQL state class 23); {@link #constraint()} names it. */
public final class ConstraintViolationException extends DataAccessException {
    private static final long serialVersionUID = 1L;
    private final String constraint;
    private final String sqlState;

    public ConstraintViolationException(String constraint, String sqlState, String message, Throwable cause) {
        super(message, cause);
        this.constraint = constraint;
        this.sqlState = sqlState;
    }

    /** The constraint's name as in the migrations, or null if the driver did not say. */
    public String constraint() {
        return constraint;
    }

    public boolean isUniqueViolation() {
        return "23505".equals(sqlState);
    }
}
