package dev.outbox.api.orders.persistence;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/** One row of {@code orders}. */
public record OrderRow(
        UUID id,
        String customerId,
        String tenantId,
        String status,
        long version,
        String currency,
        BigDecimal total,
        UUID paymentId,
        String cancelReason,
        Instant createdAt,
        Instant updatedAt) {}
