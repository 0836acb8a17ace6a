package dev.outbox.domain;

public enum OrderStatus {
    PLACED,
    CAPTURED,
    SHIPPED,
    CANCELLED
}
