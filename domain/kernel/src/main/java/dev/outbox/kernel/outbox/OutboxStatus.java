package dev.outbox.kernel.outbox;

/** The lifecycle of an outbox row; the database check constraint holds the same list. */
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
    CANCELLED
}
