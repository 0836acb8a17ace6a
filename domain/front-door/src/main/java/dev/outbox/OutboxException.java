package dev.outbox;

/**
 * The outbox's one exception family: everything the front door throws on purpose is one of these
 * (besides {@link NullPointerException} and {@link IllegalArgumentException} for arguments that
 * break a method's stated rules). Unchecked, because each is a bug to fix or a message to give up
 * on, not a condition a caller recovers from in place; a transaction it escapes rolls back.
 */
public class OutboxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OutboxException(String message) {
        super(message);
    }

    public OutboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
