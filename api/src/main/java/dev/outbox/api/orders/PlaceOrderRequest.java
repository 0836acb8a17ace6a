package dev.outbox.api.orders;

import java.util.List;

/** {@code POST /orders}: money is a decimal string in {@code currency}. */
public record PlaceOrderRequest(String customerId, String currency, List<Line> lines) {
    public record Line(String sku, Integer quantity, String unitPrice) {}
}
