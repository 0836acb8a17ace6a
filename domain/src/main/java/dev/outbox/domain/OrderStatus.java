package dev.outbox.domain;

public enum OrderStatus {
    PLACED,
    CAPTURED,
    CANCELLED
}
