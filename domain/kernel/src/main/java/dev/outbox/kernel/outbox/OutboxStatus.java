package dev.outbox.kernel.outbox;

import java.util.Optional;

/**
 * The lifecycle of an outbox row, as this version knows it. The database's check holds only the
 * form of a status ({@link Codes#SHAPE}, migration V16), so a newer version may add one while this
 * version runs: rows are read with their status as text ({@link OutboxRecord#status()}), and a
 * status that is none of these is left alone (never claimed) and counted under its own name.
 */
public enum OutboxStatus {
    /** Written by a business transaction, waiting for a relay. */
    PENDING,
    /** Leased by one relay ({@code locked_by}, {@code lease_token}) that is publishing it. */
    IN_PROGRESS,
    /** The broker confirmed it (ack, and no return). Terminal, until an operator replays it. */
    PUBLISHED,
    /** A publish attempt failed in a way that may pass; due again at {@code next_attempt_at}. */
    RETRYABLE_FAILED,
    /** Will not be retried automatically: an operator must look ({@code last_error_code} says why). */
    PARKED,
    /** An operator decided it must never be sent. Terminal. */
    CANCELLED;

    /**
     * The constant named {@code name}, or empty for a name this version does not know (a newer
     * version's status) and for null. Never throws, unlike {@link #valueOf}: a row's status is
     * data another version may have written.
     */
    public static Optional<OutboxStatus> named(String name) {
        if (name != null) {
            for (OutboxStatus s : values()) {
                if (s.name().equals(name)) {
                    return Optional.of(s);
                }
            }
        }
        return Optional.empty();
    }
}
