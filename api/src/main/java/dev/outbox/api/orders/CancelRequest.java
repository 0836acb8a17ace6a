package dev.outbox.api.orders;

/** {@code POST /orders/{id}/cancel}. */
public record CancelRequest(String reason) {}
