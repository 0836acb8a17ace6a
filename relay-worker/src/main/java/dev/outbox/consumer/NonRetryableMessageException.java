package dev.outbox.consumer;

/**
 * Thrown by a {@link MessageHandler} for a message that can never succeed (it breaks its
 * contract). The transaction rolls back and the message is not redelivered.
 */
public final class NonRetryableMessageException extends Exception {
    private static final long serialVersionUID = 1L;

    public NonRetryableMessageException(String message) {
        super(message);
    }
}
