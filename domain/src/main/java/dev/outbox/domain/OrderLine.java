package dev.outbox.domain;

import java.util.Objects;

/** One line of an order: a SKU, how many, and the unit price in the order's currency. */
public record OrderLine(String sku, int quantity, Money unitPrice) {
    public static final int MAX_QUANTITY = 10_000;

    public OrderLine {
        Objects.requireNonNull(sku, "sku");
        Objects.requireNonNull(unitPrice, "unitPrice");
    }

    public Money lineTotal() {
        return unitPrice.times(quantity);
    }
}
