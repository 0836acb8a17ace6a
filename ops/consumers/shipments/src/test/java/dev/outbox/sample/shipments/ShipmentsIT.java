package dev.outbox.sample.shipments;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.consumer.runtime.ConsumerApp;
import dev.outbox.consumer.runtime.Wires;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.jdbc.OutboxMessages;
import dev.outbox.messaging.Topology;
import dev.outbox.messaging.publish.OutboundMessage;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Currency;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The second sample consumer on the real database and broker, run by the consumer runtime exactly
 * as {@code ConsumerMain shipments} runs it: its own migrations are applied (history of their
 * own), its queue takes shipped orders only, and each shipment is recorded once however often the
 * message arrives.
 */
class ShipmentsIT {
    private static final Currency EUR = Currency.getInstance("EUR");
    private final TestDatabase db = TestDatabase.get();
    private final TestBroker broker = TestBroker.get();
    private ConsumerApp app;

    @BeforeEach
    void setUp() {
        db.reset();
        broker.withChannel(Topology::declare);
        broker.purgeIfExists(ShipmentsConsumer.QUEUE);
        broker.purgeIfExists(Topology.deadLetterQueueOf(ShipmentsConsumer.QUEUE));
        Map<String, String> env = new HashMap<>(db.env());
        env.putAll(broker.env());
        env.put("OUTBOX_SHIPMENTS_HTTP_PORT", "-1");
        app = ConsumerApp.start(new Settings(env), ShipmentsConsumer.REGISTRATION);
    }

    @AfterEach
    void tearDown() {
        if (app != null) {
            app.close();
        }
    }

    /** placed, captured, shipped: one order's whole life, as the order service writes it. */
    private static List<OutboundMessage> shippedOrder(UUID orderId, String tracking) {
        Instant t = Instant.now().truncatedTo(ChronoUnit.MICROS);
        Order.Transition placed =
                Order.place(orderId, "c", null, EUR, List.of(new OrderLine("SKU", 1, Money.parse("9.99", EUR))), t);
        Order.Transition captured = placed.order().capture(Money.parse("9.99", EUR), UUID.randomUUID(), t);
        Order.Transition shipped = captured.order().ship("DHL", tracking, t);
        List<DomainEvent> events = new ArrayList<>(placed.events());
        events.addAll(captured.events());
        events.addAll(shipped.events());
        return events.stream()
                .map(e -> Wires.of(OutboxMessages.from(e, MessageContext.none(), System.currentTimeMillis())))
                .toList();
    }

    private void publish(List<OutboundMessage> messages) {
        broker.withChannel(ch -> {
            for (OutboundMessage m : messages) {
                ch.basicPublish(m.exchange(), m.routingKey(), false, m.properties(), m.body());
            }
        });
    }

    @Test
    void itsOwnMigrationsRanWithAHistoryOfTheirOwn() {
        assertEquals(1, db.count("SELECT count(*) FROM flyway_shipments_history WHERE version = '1' AND success"));
        assertEquals(
                0,
                db.count("SELECT count(*) FROM outbox_schema_history WHERE script LIKE '%shipments%'"),
                "the product's history does not hold the consumer's migrations");
    }

    @Test
    void eachShippedOrderIsRecordedOnceAndNothingElseReachesIt() {
        int orders = 20;
        List<OutboundMessage> wire = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            wire.addAll(shippedOrder(UUID.randomUUID(), "T-" + i));
        }
        publish(wire);
        // every order.shipped twice more: a relay's retry and a replay
        List<OutboundMessage> shippedOnly = wire.stream()
                .filter(m -> m.routingKey().equals("order.shipped"))
                .toList();
        assertEquals(orders, shippedOnly.size());
        publish(shippedOnly);
        publish(shippedOnly);
        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        app.runner().stats().applied() + app.runner().stats().duplicates() == 3L * orders);
        assertEquals(orders, app.runner().stats().applied(), "applied once per message id");
        assertEquals(2L * orders, app.runner().stats().duplicates());
        assertEquals(orders, db.count("SELECT count(*) FROM shipments"));
        assertEquals(orders, db.count("SELECT count(*) FROM processed_messages WHERE consumer_name = 'shipments'"));
        assertEquals(0, app.runner().stats().contractViolations(), "placed and captured never reached its queue");
        assertEquals(0, broker.messageCount(Topology.deadLetterQueueOf(ShipmentsConsumer.QUEUE)));
    }

    @Test
    void aShipmentForAnOrderThatHasOneAlreadyChangesNothing() {
        UUID orderId = UUID.randomUUID();
        List<OutboundMessage> first = shippedOrder(orderId, "FIRST");
        // a second message (another id) shipping the same order: the business key holds the first
        List<OutboundMessage> second = shippedOrder(orderId, "SECOND");
        publish(first.subList(2, 3));
        await().atMost(Duration.ofSeconds(20)).until(() -> app.runner().stats().applied() == 1);
        publish(second.subList(2, 3));
        await().atMost(Duration.ofSeconds(20)).until(() -> app.runner().stats().applied() == 2);
        assertEquals(1, db.count("SELECT count(*) FROM shipments"));
        assertTrue(
                db.count("SELECT count(*) FROM shipments WHERE tracking_number = 'FIRST' AND order_id = '" + orderId
                                + "'")
                        == 1,
                "the first shipment stands");
    }
}
