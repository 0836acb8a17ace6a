package dev.outbox.example.invoicing;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/** A row of the invoicing service's own table. */
public record Invoice(UUID id, UUID orderId, BigDecimal amount, String currency, Instant issuedAt) {}
