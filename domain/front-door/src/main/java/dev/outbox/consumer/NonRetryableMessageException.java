package dev.outbox.consumer;

import dev.outbox.OutboxException;

/**
 * Thrown by a {@link MessageHandler} for a message that can never succeed (it breaks its
 * contract, or names something that cannot exist). The transaction rolls back and the message is
 * dead-lettered with this message as its reason, not redelivered.
 */
public final class NonRetryableMessageException extends OutboxException {
    private static final long serialVersionUID = 1L;

    public NonRetryableMessageException(String message) {
        super(message);
    }

    public NonRetryableMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
