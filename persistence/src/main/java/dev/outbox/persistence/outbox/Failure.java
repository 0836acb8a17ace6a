package dev.outbox.persistence.outbox;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.Lease;
import java.time.Duration;
import java.util.Objects;

/**
 * The outcome of a failed attempt on a leased row: park it, or retry it after {@code delay}.
 * The message is for operators and is truncated to keep one bad broker answer from bloating the
 * table.
 */
public record Failure(Lease lease, ErrorCode code, String message, boolean park, Duration delay) {
    static final int MAX_MESSAGE_LENGTH = 1_000;

    public Failure {
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(delay, "delay");
        message = message == null
                ? code.name()
                : message.length() > MAX_MESSAGE_LENGTH ? message.substring(0, MAX_MESSAGE_LENGTH) : message;
    }

    public static Failure park(Lease lease, ErrorCode code, String message) {
        return new Failure(lease, code, message, true, Duration.ZERO);
    }

    public static Failure retry(Lease lease, ErrorCode code, String message, Duration delay) {
        return new Failure(lease, code, message, false, delay);
    }
}
