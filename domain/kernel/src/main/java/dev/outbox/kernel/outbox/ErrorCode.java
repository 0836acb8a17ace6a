package dev.outbox.kernel.outbox;

import java.util.Optional;

/**
 * Why a publish attempt failed, as stored in {@code last_error_code}, and whether the relay tries
 * the row again by itself ({@link #retryable()}). The list is part of the outside contract: codes
 * may be added, never removed.
 *
 * <p>What each code means, what the relay does about it and the test that causes it for real are
 * written once, in relay-worker/README.md, "Failure handling": one row per constant, its "retried" column
 * checked against {@link #retryable()} by {@code DocumentationTest}. A new code needs its row
 * there (and its fix in {@code ops/RUNBOOK.md}).
 *
 * <p>The database's check holds only the form of a code ({@link Codes#SHAPE}, migration V16), so a
 * newer version's code may be in a row this version reads: {@link OutboxRecord#lastErrorCode()} is
 * text, and a relay that claims such a row treats it as any due row and records its own outcome.
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
    UNENCODABLE(false),
    /**
     * No contract for the row's message type is registered or on the relay's classpath, and the
     * relay parks such rows ({@code OUTBOX_RELAY_UNREGISTERED_TYPES=park}). Parked, not failed for
     * good: the relay retries the row by itself once a contract for its type is registered.
     */
    CONTRACT_UNKNOWN(false);

    private final boolean retryable;

    ErrorCode(boolean retryable) {
        this.retryable = retryable;
    }

    /** True: back to {@code RETRYABLE_FAILED} with backoff. False: {@code PARKED} at once. */
    public boolean retryable() {
        return retryable;
    }

    /**
     * The constant named {@code name}, or empty for a name this version does not know (a newer
     * version's code) and for null. Never throws, unlike {@link #valueOf}: a stored code is data
     * another version may have written.
     */
    public static Optional<ErrorCode> named(String name) {
        if (name != null) {
            for (ErrorCode c : values()) {
                if (c.name().equals(name)) {
                    return Optional.of(c);
                }
            }
        }
        return Optional.empty();
    }
}
