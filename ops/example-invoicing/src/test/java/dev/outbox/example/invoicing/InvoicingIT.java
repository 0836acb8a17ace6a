package dev.outbox.example.invoicing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.inject.Injector;
import dev.outbox.Aggregate;
import dev.outbox.MessageContext;
import dev.outbox.MessageContractViolationException;
import dev.outbox.Outbox;
import dev.outbox.OutsideTransactionException;
import dev.outbox.config.Settings;
import dev.outbox.relay.RelayApp;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mybatis.guice.transactional.Transactional;

/**
 * A service that is not the order service adopts the outbox through its public API: its own
 * table, its own contract on its own exchange, one transaction for both writes, and the
 * product's relay publishing what it recorded.
 */
class InvoicingIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final TestBroker BROKER = TestBroker.get();
    private static Injector injector;

    @BeforeAll
    static void start() {
        injector = InvoicingApp.start(DB.dataSource());
    }

    @BeforeEach
    void clean() {
        DB.reset();
    }

    private InvoicingService service() {
        return injector.getInstance(InvoicingService.class);
    }

    /** A service method that records its message and then fails: nothing may remain of it. */
    static class FailingAfterRecord {
        private final InvoicingService invoicing;

        @jakarta.inject.Inject
        FailingAfterRecord(InvoicingService invoicing) {
            this.invoicing = invoicing;
        }

        @Transactional
        void issueThenFail(UUID orderId) {
            invoicing.issue(orderId, new BigDecimal("25.00"), "EUR", MessageContext.none());
            throw new IllegalStateException("the rest of the business step failed");
        }
    }

    @Test
    void theInvoiceAndItsMessageCommitTogether() {
        UUID orderId = UUID.randomUUID();
        InvoicingService.Issued issued = service()
                .issue(orderId, new BigDecimal("25.00"), "EUR", new MessageContext("corr-7", null, null, "tenant-a"));

        Map<String, Object> row = DB.rows("SELECT * FROM message_outbox").get(0);
        assertEquals(issued.messageId(), row.get("id"));
        assertEquals("invoice.issued", row.get("message_type"));
        assertEquals("invoicing.events", row.get("exchange_name"), "from the service's own contract");
        assertEquals("invoice.issued", row.get("routing_key"));
        assertEquals("invoice", row.get("aggregate_type"));
        assertEquals(issued.invoice().id().toString(), row.get("aggregate_id"));
        assertEquals(null, row.get("aggregate_version"), "unversioned: no invoice waits for another");
        assertEquals("corr-7", row.get("correlation_id"));
        assertEquals("tenant-a", row.get("tenant_id"));
        assertEquals(1, DB.count("SELECT count(*) FROM invoices WHERE order_id = ?", orderId));
    }

    @Test
    void aFailureAfterRecordingRollsBackTheInvoiceAndTheMessage() {
        UUID orderId = UUID.randomUUID();
        assertThrows(
                IllegalStateException.class,
                () -> injector.getInstance(FailingAfterRecord.class).issueThenFail(orderId));
        assertEquals(0, DB.count("SELECT count(*) FROM invoices"));
        assertEquals(0, DB.count("SELECT count(*) FROM message_outbox"));
    }

    @Test
    void aPayloadBreakingTheContractIsRefusedAndTheInvoiceRollsBack() {
        MessageContractViolationException e = assertThrows(
                MessageContractViolationException.class,
                () -> service().issue(UUID.randomUUID(), new BigDecimal("25.00"), "eur", MessageContext.none()));
        assertTrue(
                e.violations().get(0).startsWith("currency: "), e.violations().toString());
        assertEquals(0, DB.count("SELECT count(*) FROM invoices"));
        assertEquals(0, DB.count("SELECT count(*) FROM message_outbox"));
    }

    @Test
    void recordingOutsideATransactionIsRefusedAndWritesNothing() {
        Outbox outbox = injector.getInstance(Outbox.class);
        OutsideTransactionException e = assertThrows(
                OutsideTransactionException.class,
                () -> outbox.record(
                        InvoicingService.INVOICE_ISSUED,
                        Aggregate.unversioned("invoice", UUID.randomUUID().toString()),
                        Map.of(),
                        MessageContext.none()));
        assertTrue(e.getMessage().contains("outside a transaction"), e.getMessage());
        assertEquals(0, DB.count("SELECT count(*) FROM message_outbox"));
    }

    @Test
    void aTypeWithoutAContractIsRefused() {
        Outbox outbox = injector.getInstance(Outbox.class);
        MessageContractViolationException e = assertThrows(
                MessageContractViolationException.class, () -> new TransactionalCall(outbox).record("invoice.voided"));
        assertTrue(
                e.violations().get(0).contains("there is no contract contracts/invoice.voided/v1.schema.json"),
                e.violations().toString());
    }

    /** Calls the public API inside a transaction of its own. */
    static class TransactionalCall {
        private final Outbox outbox;

        TransactionalCall(Outbox outbox) {
            this.outbox = outbox;
        }

        void record(String type) {
            injector.getInstance(Runner.class)
                    .run(() -> outbox.record(
                            new dev.outbox.MessageType(type, 1),
                            Aggregate.unversioned("invoice", "i-1"),
                            Map.of("invoiceId", "i-1"),
                            MessageContext.none()));
        }
    }

    static class Runner {
        @Transactional
        void run(Runnable r) {
            r.run();
        }
    }

    /** Through the front door at start: its contract, where a relay without the service's jar reads it. */
    @Test
    void atStartTheServiceRegistersItsContractThroughTheFrontDoor() {
        InvoicingApp.start(DB.dataSource());

        assertEquals(
                List.of(Map.of(
                        "message_type", "invoice.issued",
                        "message_version", 1,
                        "exchange_name", "invoicing.events",
                        "ordered", false,
                        "registered_by", "invoicing")),
                DB.rows("SELECT message_type, message_version, exchange_name, ordered, registered_by"
                        + " FROM outbox_message_contracts WHERE message_type = 'invoice.issued'"));
    }

    @Test
    void theProductsRelayPublishesWhatTheServiceRecorded() throws Exception {
        BROKER.declareTopicExchange("invoicing.events");
        Map<String, String> env = new HashMap<>(DB.env());
        env.putAll(BROKER.env());
        env.put("OUTBOX_RELAY_POLL_INTERVAL", "20ms");
        env.put("OUTBOX_RELAY_HTTP_PORT", "0");
        try (RecordingQueue wire = BROKER.bindQueue("invoicing.events", "invoice.issued");
                RelayApp relay = RelayApp.start(new Settings(env))) {
            InvoicingService.Issued issued =
                    service().issue(UUID.randomUUID(), new BigDecimal("25.00"), "EUR", MessageContext.none());
            List<TestBroker.Received> received = wire.await(1, Duration.ofSeconds(20));
            assertEquals(issued.messageId().toString(), received.get(0).messageId());
            assertEquals("invoice.issued", received.get(0).header("message_type"));
            JsonNode body = new ObjectMapper().readTree(received.get(0).body());
            assertEquals(issued.invoice().id().toString(), body.get("invoiceId").asText());
            assertEquals("25.00", body.get("amount").asText());
        }
    }
}
