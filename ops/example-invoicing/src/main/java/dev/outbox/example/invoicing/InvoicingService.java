package dev.outbox.example.invoicing;

import dev.outbox.Aggregate;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.Outbox;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.mybatis.guice.transactional.Transactional;

/**
 * Issues invoices: the invoice row and its {@code invoice.issued} message in one transaction,
 * through the outbox's public API only.
 */
public class InvoicingService {
    public static final MessageType INVOICE_ISSUED = new MessageType("invoice.issued", 1);

    private final InvoiceMapper invoices;
    private final Outbox outbox;
    private final Clock clock;

    @Inject
    public InvoicingService(InvoiceMapper invoices, Outbox outbox, Clock clock) {
        this.invoices = invoices;
        this.outbox = outbox;
        this.clock = clock;
    }

    /** The invoice and the id of the message announcing it, which consumers deduplicate on. */
    public record Issued(Invoice invoice, UUID messageId) {}

    @Transactional
    public Issued issue(UUID orderId, BigDecimal amount, String currency, MessageContext context) {
        Instant now = clock.instant();
        Invoice invoice = new Invoice(UUID.randomUUID(), orderId, amount, currency, now);
        invoices.insert(invoice);
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("invoiceId", invoice.id().toString());
        payload.put("orderId", orderId.toString());
        payload.put("amount", amount.toPlainString());
        payload.put("currency", currency);
        payload.put("issuedAt", now.toString());
        UUID messageId = outbox.record(
                INVOICE_ISSUED, Aggregate.unversioned("invoice", invoice.id().toString()), payload, context);
        return new Issued(invoice, messageId);
    }
}
