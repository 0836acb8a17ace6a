package dev.outbox.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.DomainEvent;
import dev.outbox.domain.event.OrderCancelled;
import dev.outbox.domain.event.OrderCreated;
import dev.outbox.domain.event.OrderShipped;
import dev.outbox.domain.event.PaymentCaptured;
import dev.outbox.domain.event.PaymentRefunded;
import java.time.Instant;
import java.util.Currency;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OrderTest {
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final Instant T0 = Instant.parse("2026-11-30T09:14:02.310Z");
    private static final Instant T1 = T0.plusSeconds(60);
    private static final UUID ORDER_ID = UUID.fromString("0192f3a4-0000-7000-8000-000000000001");
    private static final UUID PAYMENT_ID = UUID.fromString("0192f3a4-0000-7000-8000-0000000000aa");

    private static Order placed() {
        return Order.place(
                        ORDER_ID,
                        "cust-1",
                        "tenant-a",
                        EUR,
                        List.of(
                                new OrderLine("SKU-1", 2, Money.parse("10.00", EUR)),
                                new OrderLine("SKU-2", 1, Money.parse("22.50", EUR))),
                        T0)
                .order();
    }

    @Test
    void placingAnOrderEmitsOrderCreatedAtVersionOne() {
        Order.Transition t = Order.place(
                ORDER_ID, "cust-1", null, EUR, List.of(new OrderLine("SKU-1", 3, Money.parse("1.10", EUR))), T0);
        assertEquals(OrderStatus.PLACED, t.order().status());
        assertEquals(1, t.order().version());
        assertEquals(Money.parse("3.30", EUR), t.order().total());
        assertEquals(1, t.events().size());
        DomainEvent e = t.events().get(0);
        assertEquals(OrderCreated.TYPE, e.type());
        assertEquals(1, e.aggregateVersion());
        assertEquals(ORDER_ID, e.aggregateId());
        assertEquals("order", e.aggregateType());
        Map<String, Object> p = e.payload();
        assertEquals(ORDER_ID.toString(), p.get("orderId"));
        assertEquals("3.30", p.get("total"));
        assertEquals("EUR", p.get("currency"));
        assertEquals(T0.toString(), p.get("placedAt"));
        assertTrue(!p.containsKey("tenantId"), "absent tenant is omitted, not null");
    }

    @Test
    void placingReportsEveryBrokenRuleAtOnce() {
        InvalidInputException e = assertThrows(
                InvalidInputException.class,
                () -> Order.place(
                        ORDER_ID,
                        " ",
                        null,
                        EUR,
                        List.of(new OrderLine("bad sku!", 0, Money.parse("-1.00", EUR))),
                        T0));
        List<String> fields = e.violations().stream().map(Violation::field).toList();
        assertEquals(List.of("customerId", "lines[0].sku", "lines[0].quantity", "lines[0].unitPrice"), fields);
    }

    @Test
    void placingRefusesNoLinesTooManyLinesAndAZeroTotal() {
        assertThrows(InvalidInputException.class, () -> Order.place(ORDER_ID, "c", null, EUR, List.of(), T0));
        List<OrderLine> many =
                java.util.Collections.nCopies(Order.MAX_LINES + 1, new OrderLine("S", 1, Money.parse("1", EUR)));
        assertThrows(InvalidInputException.class, () -> Order.place(ORDER_ID, "c", null, EUR, many, T0));
        InvalidInputException zero = assertThrows(
                InvalidInputException.class,
                () -> Order.place(ORDER_ID, "c", null, EUR, List.of(new OrderLine("S", 1, Money.parse("0", EUR))), T0));
        assertEquals("lines", zero.violations().get(0).field());
    }

    @Test
    void placingRefusesLinesInAnotherCurrency() {
        InvalidInputException e = assertThrows(
                InvalidInputException.class,
                () -> Order.place(
                        ORDER_ID,
                        "c",
                        null,
                        EUR,
                        List.of(new OrderLine("S", 1, Money.parse("5", Currency.getInstance("JPY")))),
                        T0));
        assertEquals("lines[0].unitPrice", e.violations().get(0).field());
    }

    @Test
    void capturingTheExactTotalEmitsPaymentCaptured() {
        Order.Transition t = placed().capture(Money.parse("42.5", EUR), PAYMENT_ID, T1);
        assertEquals(OrderStatus.CAPTURED, t.order().status());
        assertEquals(2, t.order().version());
        assertEquals(PAYMENT_ID, t.order().paymentId());
        PaymentCaptured e = assertInstanceOf(PaymentCaptured.class, t.events().get(0));
        assertEquals(2, e.aggregateVersion());
        assertEquals("42.50", e.payload().get("amount"));
        assertEquals(PAYMENT_ID.toString(), e.payload().get("paymentId"));
    }

    @Test
    void capturingAnotherAmountIsABusinessRuleViolation() {
        BusinessRuleException e = assertThrows(
                BusinessRuleException.class, () -> placed().capture(Money.parse("42.49", EUR), PAYMENT_ID, T1));
        assertEquals("capture_amount_mismatch", e.code());
        BusinessRuleException c = assertThrows(
                BusinessRuleException.class,
                () -> placed().capture(Money.parse("42", Currency.getInstance("JPY")), PAYMENT_ID, T1));
        assertEquals("capture_currency_mismatch", c.code());
    }

    @Test
    void capturingTwiceIsAnIllegalTransition() {
        Order captured =
                placed().capture(Money.parse("42.50", EUR), PAYMENT_ID, T1).order();
        IllegalTransitionException e = assertThrows(
                IllegalTransitionException.class,
                () -> captured.capture(Money.parse("42.50", EUR), UUID.randomUUID(), T1));
        assertEquals(OrderStatus.CAPTURED, e.from());
        assertEquals("illegal_transition", e.code());
    }

    @Test
    void capturingACancelledOrderIsAnIllegalTransition() {
        Order cancelled = placed().cancel("changed my mind", T1).order();
        assertThrows(
                IllegalTransitionException.class, () -> cancelled.capture(Money.parse("42.50", EUR), PAYMENT_ID, T1));
    }

    @Test
    void cancellingAPlacedOrderEmitsOnlyOrderCancelled() {
        Order.Transition t = placed().cancel("changed my mind", T1);
        assertEquals(OrderStatus.CANCELLED, t.order().status());
        assertEquals(2, t.order().version());
        assertEquals(1, t.events().size());
        OrderCancelled e = assertInstanceOf(OrderCancelled.class, t.events().get(0));
        assertEquals("PLACED", e.payload().get("previousStatus"));
        assertNull(t.order().paymentId());
    }

    @Test
    void cancellingACapturedOrderRefundsItInTheSameTransition() {
        Order captured =
                placed().capture(Money.parse("42.50", EUR), PAYMENT_ID, T1).order();
        Order.Transition t = captured.cancel("out of stock", T1.plusSeconds(5));
        assertEquals(OrderStatus.CANCELLED, t.order().status());
        assertEquals(4, t.order().version(), "one version per event: cancelled (3) then refunded (4)");
        assertEquals(2, t.events().size());
        OrderCancelled cancelled =
                assertInstanceOf(OrderCancelled.class, t.events().get(0));
        PaymentRefunded refunded =
                assertInstanceOf(PaymentRefunded.class, t.events().get(1));
        assertEquals(3, cancelled.aggregateVersion());
        assertEquals("CAPTURED", cancelled.payload().get("previousStatus"));
        assertEquals(4, refunded.aggregateVersion());
        assertEquals(PAYMENT_ID, refunded.paymentId());
        assertEquals("42.50", refunded.payload().get("amount"));
    }

    @Test
    void shippingACapturedOrderEmitsOrderShippedAtTheNextVersion() {
        Order captured =
                placed().capture(Money.parse("42.50", EUR), PAYMENT_ID, T1).order();
        Order.Transition t = captured.ship(" DHL ", "JJD0001", T1.plusSeconds(5));
        assertEquals(OrderStatus.SHIPPED, t.order().status());
        assertEquals(3, t.order().version());
        assertEquals(PAYMENT_ID, t.order().paymentId(), "shipping keeps the payment");
        OrderShipped shipped = assertInstanceOf(OrderShipped.class, t.events().get(0));
        assertEquals(1, t.events().size());
        assertEquals(3, shipped.aggregateVersion());
        assertEquals(
                Map.of(
                        "orderId",
                        ORDER_ID.toString(),
                        "carrier",
                        "DHL",
                        "trackingNumber",
                        "JJD0001",
                        "shippedAt",
                        T1.plusSeconds(5).toString()),
                shipped.payload());
    }

    @Test
    void onlyACapturedOrderShipsAndAShippedOrderCannotBeCancelled() {
        assertThrows(IllegalTransitionException.class, () -> placed().ship("DHL", "1", T1));
        Order shipped = placed().capture(Money.parse("42.50", EUR), PAYMENT_ID, T1)
                .order()
                .ship("DHL", "1", T1)
                .order();
        assertThrows(IllegalTransitionException.class, () -> shipped.ship("DHL", "2", T1));
        assertThrows(IllegalTransitionException.class, () -> shipped.cancel("too late", T1));
    }

    @Test
    void shippingNamesEveryMissingOrOverlongField() {
        Order captured =
                placed().capture(Money.parse("42.50", EUR), PAYMENT_ID, T1).order();
        InvalidInputException e =
                assertThrows(InvalidInputException.class, () -> captured.ship(" ", "x".repeat(101), T1));
        assertEquals(
                List.of("carrier", "trackingNumber"),
                e.violations().stream().map(Violation::field).toList());
    }

    @Test
    void cancellingTwiceIsAnIllegalTransition() {
        Order cancelled = placed().cancel("x", T1).order();
        assertThrows(IllegalTransitionException.class, () -> cancelled.cancel("again", T1));
    }

    @Test
    void cancellingNeedsAReason() {
        assertThrows(InvalidInputException.class, () -> placed().cancel(" ", T1));
        assertThrows(InvalidInputException.class, () -> placed().cancel("x".repeat(Order.MAX_REASON_LENGTH + 1), T1));
    }

    @Test
    void aTransitionNeverMutatesTheOriginal() {
        Order original = placed();
        original.capture(Money.parse("42.50", EUR), PAYMENT_ID, T1);
        assertEquals(OrderStatus.PLACED, original.status());
        assertEquals(1, original.version());
    }

    @Test
    void rebuildingAnOrderRefusesInconsistentState() {
        assertThrows(
                IllegalStateException.class,
                () -> new Order(
                        ORDER_ID,
                        "c",
                        null,
                        OrderStatus.CAPTURED,
                        2,
                        EUR,
                        List.of(),
                        Money.parse("1", EUR),
                        null,
                        null,
                        T0,
                        T0));
        assertThrows(
                IllegalStateException.class,
                () -> new Order(
                        ORDER_ID,
                        "c",
                        null,
                        OrderStatus.PLACED,
                        0,
                        EUR,
                        List.of(),
                        Money.parse("1", EUR),
                        null,
                        null,
                        T0,
                        T0));
    }
}
