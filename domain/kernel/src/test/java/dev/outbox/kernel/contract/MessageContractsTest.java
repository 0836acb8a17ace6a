package dev.outbox.kernel.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.DomainEvent;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import java.time.Instant;
import java.util.Currency;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The catalogue as the order service ships it: the domain module's contracts, read from the classpath. */
class MessageContractsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final UUID ID = UUID.fromString("0192f3a4-0000-7000-8000-000000000001");
    private static final Instant T = Instant.parse("2026-11-30T10:00:00Z");

    private final MessageContracts catalog = MessageContracts.onClasspath();

    /** One event of every type the order aggregate emits. */
    static List<DomainEvent> everyEventTheOrderEmits() {
        Order placed = Order.place(ID, "c", "t", EUR, List.of(new OrderLine("S", 1, Money.parse("5", EUR))), T)
                .order();
        Order.Transition capture = placed.capture(Money.parse("5", EUR), UUID.randomUUID(), T);
        Order.Transition ship = capture.order().ship("DHL", "JJD0001", T);
        Order.Transition cancel = capture.order().cancel("r", T);
        return List.of(
                Order.place(ID, "c", null, EUR, placed.lines(), T).events().get(0),
                capture.events().get(0),
                ship.events().get(0),
                cancel.events().get(0),
                cancel.events().get(1));
    }

    private static ObjectNode payloadOf(DomainEvent e) {
        return JSON.valueToTree(e.payload());
    }

    private static ObjectNode captured() {
        return payloadOf(everyEventTheOrderEmits().get(1));
    }

    @Test
    void everyEventTheDomainEmitsHasAContractAndHonoursIt() {
        List<DomainEvent> events = everyEventTheOrderEmits();
        assertEquals(
                catalog.messageTypes(),
                events.stream().map(e -> e.type().name()).collect(Collectors.toSet()),
                "every contract is emitted by the order aggregate and every emitted type has a contract");
        for (DomainEvent e : events) {
            MessageContract c = catalog.require(e.type().name(), e.type().version());
            assertEquals(e.aggregateType(), c.aggregateType(), c.toString());
            assertEquals(List.of(), c.violations(e.aggregateId().toString(), payloadOf(e)), c.toString());
        }
    }

    @Test
    void theContractsSayWhereEachTypeGoes() {
        MessageContract created = catalog.require("order.created", 1);
        assertEquals("orders.events", created.exchange());
        assertEquals("order.created", created.routingKey(), "the routing key is the message type unless declared");
        assertEquals("orderId", created.aggregateIdProperty());
        assertTrue(created.ordered());
        assertEquals(Set.of(), catalog.unorderedTypes());
        assertFalse(created.payloadSchema().has("x-outbox"), "the published schema leaves out the outbox's block");
        assertTrue(created.payloadSchema().has("properties"));
    }

    @Test
    void missingAndMistypedFieldsAreNamed() {
        ObjectNode p = captured();
        p.remove("paymentId");
        p.put("amount", 42.5);
        assertEquals(
                List.of("amount: number found, string expected", "payload: required property 'paymentId' not found"),
                catalog.violations("payment.captured", 1, ID.toString(), p));
    }

    @Test
    void amountsMustBePositiveDecimalStringsAndCurrenciesCodes() {
        for (String zero : List.of("0", "0.00", "-5", "5.", "1e3")) {
            ObjectNode p = captured().put("amount", zero);
            assertEquals(
                    1,
                    catalog.violations("payment.captured", 1, ID.toString(), p).size(),
                    zero);
        }
        for (String fine : List.of("0.01", "5", "1234.5678")) {
            ObjectNode p = captured().put("amount", fine);
            assertEquals(List.of(), catalog.violations("payment.captured", 1, ID.toString(), p), fine);
        }
        ObjectNode p = captured().put("currency", "eur").put("capturedAt", "yesterday");
        List<String> v = catalog.violations("payment.captured", 1, ID.toString(), p);
        assertEquals(2, v.size(), v.toString());
        assertTrue(v.get(0).startsWith("currency: "), v.toString());
        assertTrue(v.get(1).startsWith("capturedAt: "), v.toString());
    }

    @Test
    void linesAreCheckedElementByElement() {
        ObjectNode p = payloadOf(everyEventTheOrderEmits().get(0));
        ((ObjectNode) p.withArray("lines").get(0)).put("quantity", 0);
        assertEquals(
                List.of("lines[0].quantity: must have a minimum value of 1"),
                catalog.violations("order.created", 1, ID.toString(), p));
    }

    @Test
    void aPayloadForAnotherAggregateIsRefused() {
        List<String> v =
                catalog.violations("payment.captured", 1, UUID.randomUUID().toString(), captured());
        assertEquals(1, v.size());
        assertTrue(v.get(0).startsWith("orderId " + ID + " does not match the row's aggregate_id "), v.get(0));
    }

    @Test
    void aKnownTypeAtAnUnknownVersionIsRefused() {
        assertEquals(
                List.of("order.created has no contract at version 9 (known: [1])"),
                catalog.violations("order.created", 9, ID.toString(), captured()));
    }

    @Test
    void nonObjectsAndNonJsonAreRefusedForKnownTypes() {
        assertEquals(
                List.of("payload: array found, object expected"),
                catalog.violations("order.created", 1, ID.toString(), "[1, 2]"));
        List<String> v = catalog.violations("order.created", 1, ID.toString(), "{\"orderId\":");
        assertEquals(1, v.size());
        assertTrue(v.get(0).startsWith("payload is not valid JSON: "), v.get(0));
    }

    @Test
    void unknownMessageTypesAreNotCheckedBeyondBeingJson() {
        assertEquals(List.of(), catalog.violations("inventory.reserved", 3, "x", "{\"anything\": 1}"));
        assertThrows(ContractDefinitionException.class, () -> catalog.require("inventory.reserved", 1));
    }

    @Test
    void additionalPropertiesAreAllowedSoAContractCanGrow() {
        ObjectNode p = captured().put("capturedBy", "terminal-7");
        assertEquals(List.of(), catalog.violations("payment.captured", 1, ID.toString(), p));
    }

    @Test
    void examplesAreThereForDocumentsAndHonourTheirContract() {
        for (MessageContract c : catalog.all()) {
            assertFalse(c.examples().isEmpty(), c + " has an example");
            for (JsonNode example : c.examples()) {
                assertEquals(List.of(), c.violations(null, example), c.toString());
            }
        }
    }
}
