package dev.outbox.messaging.publish;

import dev.outbox.kernel.outbox.ErrorCode;

/**
 * Receives the outcome of every message a {@link ConfirmPublisher} sent, exactly once each.
 * Called on the connection's I/O thread: implementations must only hand the outcome on.
 */
public interface PublishListener<T> {
    /** The broker acked the message and did not return it. */
    void confirmed(T tag, long confirmNanos);

    /** The message failed with a definite cause. */
    void failed(T tag, ErrorCode code, String detail);

    /**
     * The channel was closed with a destination error (404, 403) while this message was in
     * flight. The broker does not say which message caused it, so the caller must find out by
     * publishing each suspect alone ({@link ConfirmPublisher#publishAlone}).
     */
    void suspect(T tag, ErrorCode code, String detail);

    /**
     * The message was in flight on a channel the publisher had to retire (see {@link
     * ConfirmPublisher#publish}); the broker may or may not have it. Not a failure of this message:
     * publish it again, without counting an attempt.
     */
    void unknown(T tag, String detail);
}
