package dev.outbox.domain.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import java.time.Instant;
import java.util.Currency;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class MessageContractTest {
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final UUID ID = UUID.fromString("0192f3a4-0000-7000-8000-000000000001");
    private static final Instant T = Instant.parse("2026-11-30T10:00:00Z");

    private static List<DomainEvent> everyEventType() {
        Order placed = Order.place(ID, "c", "t", EUR, List.of(new OrderLine("S", 1, Money.parse("5", EUR))), T)
                .order();
        Order.Transition capture = placed.capture(Money.parse("5", EUR), UUID.randomUUID(), T);
        Order.Transition cancel = capture.order().cancel("r", T);
        return List.of(Order.place(ID, "c", null, EUR, placed.lines(), T).events().get(0),
                capture.events().get(0), cancel.events().get(0), cancel.events().get(1));
    }

    @Test
    void everyEventTheDomainEmitsHonoursItsOwnContract() {
        List<DomainEvent> events = everyEventType();
        assertEquals(EventType.values().length, events.stream().map(DomainEvent::type).distinct().count());
        for (DomainEvent e : events) {
            assertEquals(List.of(), MessageContract.violations(e.type().messageType(), e.type().messageVersion(),
                    e.aggregateId().toString(), e.payload()), e.type().messageType());
        }
    }

    @Test
    void missingAndMistypedFieldsAreNamed() {
        Map<String, Object> p = new HashMap<>(everyEventType().get(1).payload());
        p.remove("paymentId");
        p.put("amount", 42.5);
        List<String> v = MessageContract.violations("payment.captured", 1, ID.toString(), p);
        assertEquals(List.of("paymentId is required", "amount must be a decimal string"), v);
    }

    @Test
    void aPayloadForAnotherAggregateIsRefused() {
        Map<String, Object> p = everyEventType().get(1).payload();
        List<String> v = MessageContract.violations("payment.captured", 1, UUID.randomUUID().toString(), p);
        assertEquals(1, v.size());
        assertTrue(v.get(0).contains("does not match the row's aggregate_id"), v.get(0));
    }

    @Test
    void aKnownTypeAtAnUnknownVersionIsRefused() {
        Map<String, Object> p = everyEventType().get(0).payload();
        assertEquals(List.of("order.created has no contract at version 9"),
                MessageContract.violations("order.created", 9, ID.toString(), p));
    }

    @Test
    void nonObjectsAreRefusedForKnownTypes() {
        assertEquals(List.of("payload must be a JSON object"),
                MessageContract.violations("order.created", 1, ID.toString(), List.of(1, 2)));
    }

    @Test
    void unknownMessageTypesAreNotCheckedBeyondBeingJson() {
        assertEquals(List.of(), MessageContract.violations("inventory.reserved", 3, "x", "anything"));
    }

    @Test
    void linesAreCheckedElementByElement() {
        Map<String, Object> p = new HashMap<>(everyEventType().get(0).payload());
        p.put("lines", List.of(Map.of("sku", "S", "quantity", 0, "unitPrice", "1.00")));
        assertEquals(List.of("lines [0].quantity must be a positive integer"),
                MessageContract.violations("order.created", 1, ID.toString(), p));
    }
}
