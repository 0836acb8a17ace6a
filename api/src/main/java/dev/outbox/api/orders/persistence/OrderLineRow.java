package dev.outbox.api.orders.persistence;

import java.math.BigDecimal;
import java.util.UUID;

/** One row of {@code order_lines}. */
public record OrderLineRow(UUID orderId, int lineNo, String sku, int quantity, BigDecimal unitPrice) {}
