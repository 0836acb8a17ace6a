package dev.outbox.api.orders;

/** {@code POST /orders/{id}/capture}: the amount must equal the order total. */
public record CaptureRequest(String amount) {}
