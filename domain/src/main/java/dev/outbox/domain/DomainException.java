package dev.outbox.domain;

/**
 * Base of every rule the domain refuses. Each subclass carries a stable, machine-readable
 * {@link #code()} that the HTTP edge turns into a problem type; the message is for humans.
 */
public abstract class DomainException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String code;

    protected DomainException(String code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public String code() {
        return code;
    }
}
