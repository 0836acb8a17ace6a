package dev.outbox.api.orders;

/** {@code POST /orders/{id}/ship}: who carries the captured order, under which tracking number. */
public record ShipRequest(String carrier, String trackingNumber) {}
