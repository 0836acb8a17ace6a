package dev.outbox.sample.ledger;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/** One row of {@code ledger_entries}: a captured or refunded payment, booked once. */
public record LedgerEntry(
        UUID id,
        UUID orderId,
        UUID paymentId,
        String entryType,
        BigDecimal amount,
        String currency,
        String messageId,
        Instant bookedAt) {

    public static final String CAPTURE = "CAPTURE";
    public static final String REFUND = "REFUND";
}
