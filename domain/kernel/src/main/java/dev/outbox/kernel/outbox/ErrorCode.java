package dev.outbox.kernel.outbox;

/**
 * Why a publish attempt failed, as stored in {@code last_error_code}, and what the relay does
 * about it. The list is part of the outside contract: codes may be added, never removed.
 */
public enum ErrorCode {
    /** The broker could not be reached at all. */
    BROKER_UNAVAILABLE(true),
    /** The connection or channel went away while the row was in flight. */
    CONNECTION_LOST(true),
    /** No confirm arrived within the deadline; the broker may or may not have it (duplicates possible). */
    CONFIRM_TIMEOUT(true),
    /** The broker answered {@code basic.nack}: it could not take responsibility for the message. */
    NACKED(true),
    /** {@code basic.return} 312 NO_ROUTE: no queue is bound for the routing key. A topology bug. */
    UNROUTABLE(false),
    /** The channel was closed with 404 NOT_FOUND: the exchange does not exist. */
    EXCHANGE_NOT_FOUND(false),
    /** The channel was closed with 403 ACCESS_REFUSED: the relay's user may not write there. */
    ACCESS_REFUSED(false),
    /** The channel was closed with another reply code; retried in case the cause is transient. */
    CHANNEL_ERROR(true),
    /** The payload is not valid JSON or breaks its message contract. Never retried. */
    PAYLOAD_INVALID(false),
    /**
     * The relay's lease expired before it could record an outcome, or the relay holding it died
     * (the first time this row was in a dead relay's hands); the row went back to retry.
     */
    STALE_LOCK(true),
    /** Set by an operator action (cancel, manual park). */
    OPERATOR(false),
    /**
     * The relay holding the lease died (its liveness lock was free) and the row had been given
     * back before ({@link #STALE_LOCK} or this): a suspect, given back due now without counting the
     * attempt and published alone from then on.
     */
    RELAY_DIED(true),
    /**
     * The row can never become an AMQP message: a property over the protocol's 255-byte limit, a
     * header value the protocol cannot carry, headers over the connection's frame size, or a body
     * over the broker's message size limit (also when the broker itself refuses the message with
     * 406 on {@code basic.publish}). Found before a publish sequence number is taken; never retried.
     */
    UNENCODABLE(false);

    private final boolean retryable;

    ErrorCode(boolean retryable) {
        this.retryable = retryable;
    }

    /** True: back to {@code RETRYABLE_FAILED} with backoff. False: {@code PARKED} at once. */
    public boolean retryable() {
        return retryable;
    }
}
