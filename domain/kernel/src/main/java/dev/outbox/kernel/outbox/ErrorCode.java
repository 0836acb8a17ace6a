package dev.outbox.kernel.outbox;

/**
 * Why a publish attempt failed, as stored in {@code last_error_code}, and whether the relay tries
 * the row again by itself ({@link #retryable()}). The list is part of the outside contract: codes
 * may be added, never removed.
 *
 * <p>What each code means, what the relay does about it and the test that causes it for real are
 * written once, in relay-worker/README.md, "Failure handling": one row per constant, its "retried" column
 * checked against {@link #retryable()} by {@code DocumentationTest}. A new code needs its row
 * there (and its fix in {@code ops/RUNBOOK.md}).
 */
public enum ErrorCode {
    BROKER_UNAVAILABLE(true),
    CONNECTION_LOST(true),
    CONFIRM_TIMEOUT(true),
    NACKED(true),
    UNROUTABLE(false),
    EXCHANGE_NOT_FOUND(false),
    ACCESS_REFUSED(false),
    CHANNEL_ERROR(true),
    PAYLOAD_INVALID(false),
    STALE_LOCK(true),
    OPERATOR(false),
    RELAY_DIED(true),
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
