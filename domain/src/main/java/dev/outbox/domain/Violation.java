package dev.outbox.domain;

import java.util.Objects;

/** One broken input rule: which field (JSON-pointer-like path) and why. */
public record Violation(String field, String message) {
    public Violation {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
    }
}
