package dev.outbox.sample.ledger;

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
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.jdbc.OutboxMessages;
import dev.outbox.messaging.Topology;
import dev.outbox.messaging.publish.OutboundMessage;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Currency;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 000's scenario for real: the ledger consumer runs as several instances with prefetch 50,
 * and {@code payment.refunded} reaches the queue before {@code payment.captured} of the same
 * order. The ledger still books the capture first, then the refund; duplicates apply once, and
 * two different messages asking for the same booking book it once.
 */
class LedgerOrderingIT {
    private static final Currency EUR = Currency.getInstance("EUR");
    private final TestDatabase db = TestDatabase.get();
    private final TestBroker broker = TestBroker.get();
    private final List<ConsumerApp> consumers = new ArrayList<>();

    @BeforeEach
    void setUp() {
        db.reset();
        broker.withChannel(Topology::declare);
        broker.purgeIfExists(LedgerConsumer.QUEUE);
        broker.purgeIfExists(Topology.deadLetterQueueOf(LedgerConsumer.QUEUE));
    }

    @AfterEach
    void tearDown() {
        consumers.forEach(ConsumerApp::close);
    }

    private void startConsumers(int instances) {
        Map<String, String> env = new HashMap<>(db.env());
        env.putAll(broker.env());
        env.put("OUTBOX_LEDGER_PREFETCH", "50");
        env.put("OUTBOX_LEDGER_HTTP_PORT", "0");
        for (int i = 0; i < instances; i++) {
            consumers.add(ConsumerApp.start(new Settings(env), LedgerConsumer.REGISTRATION));
        }
    }

    /** place, capture, cancel (with refund): versions 1 to 4 of one order. */
    private static List<NewOutboxMessage> lifecycle() {
        Instant t = Instant.now().truncatedTo(ChronoUnit.MICROS);
        Order.Transition placed = Order.place(
                UUID.randomUUID(), "c", null, EUR, List.of(new OrderLine("SKU", 1, Money.parse("42.50", EUR))), t);
        Order.Transition captured = placed.order().capture(Money.parse("42.50", EUR), UUID.randomUUID(), t);
        Order.Transition cancelled = captured.order().cancel("returned", t);
        List<DomainEvent> events = new ArrayList<>(placed.events());
        events.addAll(captured.events());
        events.addAll(cancelled.events());
        return events.stream()
                .map(e -> OutboxMessages.from(e, MessageContext.none(), System.currentTimeMillis()))
                .toList();
    }

    /** The same message with another payload snapshot (JSON text). */
    private static NewOutboxMessage withPayload(NewOutboxMessage m, String payload) {
        return new NewOutboxMessage(
                m.id(),
                m.aggregateType(),
                m.aggregateId(),
                m.aggregateVersion(),
                m.messageType(),
                m.messageVersion(),
                m.exchangeName(),
                m.routingKey(),
                payload,
                m.headers(),
                m.correlationId(),
                m.causationId(),
                m.traceId(),
                m.tenantId());
    }

    private void publish(List<OutboundMessage> messages) {
        broker.withChannel(ch -> {
            for (OutboundMessage m : messages) {
                ch.basicPublish(m.exchange(), m.routingKey(), true, m.properties(), m.body());
            }
        });
    }

    private long applied() {
        return consumers.stream()
                .mapToLong(
                        c -> c.runner().stats().applied() + c.runner().stats().heldApplied())
                .sum();
    }

    @Test
    void aRefundDeliveredBeforeItsCaptureIsBookedAfterIt() throws Exception {
        int orders = 40;
        List<OutboundMessage> wire = new ArrayList<>();
        List<String> orderIds = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            List<NewOutboxMessage> events = lifecycle();
            orderIds.add(events.get(0).aggregateId());
            // refunded (v4) first, then captured (v2), cancelled (v3), created (v1)
            for (int v : new int[] {3, 1, 2, 0}) {
                wire.add(Wires.of(events.get(v)));
            }
        }
        Collections.shuffle(wire, new Random(7));
        publish(wire);
        startConsumers(3);

        await().atMost(Duration.ofSeconds(30)).until(() -> applied() == 4L * orders);
        for (String id : orderIds) {
            List<Object> types = db
                    .rows("SELECT entry_type FROM ledger_entries WHERE order_id = ?::uuid" + " ORDER BY entry_seq", id)
                    .stream()
                    .map(r -> r.get("entry_type"))
                    .toList();
            assertEquals(List.of("CAPTURE", "REFUND"), types, "order " + id);
            // the journal shows every version applied, in order, each once, whichever instance took it
            List<Object> versions = db
                    .rows(
                            "SELECT aggregate_version FROM ledger_journal WHERE consumer_name = 'ledger'"
                                    + " AND aggregate_type = 'order' AND aggregate_id = ? ORDER BY seq",
                            id)
                    .stream()
                    .map(r -> r.get("aggregate_version"))
                    .toList();
            assertEquals(List.of(1L, 2L, 3L, 4L), versions, "journal of order " + id);
        }
        assertEquals(
                List.of(java.util.Map.of(
                        "instance_id",
                        java.net.InetAddress.getLocalHost().getHostName() + "-"
                                + ProcessHandle.current().pid())),
                db.rows("SELECT DISTINCT instance_id FROM ledger_journal"));
        long held = consumers.stream().mapToLong(c -> c.runner().stats().held()).sum();
        assertTrue(held > 0, "refunds that arrived first were held, not applied or dropped");
        assertEquals(0, db.count("SELECT count(*) FROM consumer_held_messages"));
    }

    /**
     * Schema evolution, the additive rule: a producer whose v1 contract gained an optional field
     * sends it; this consumer, built against the v1 contract without that field, books the same
     * entries and dead-letters nothing.
     */
    @Test
    void aConsumerOfV1IsUnaffectedByAnOptionalFieldAddedToV1() throws Exception {
        List<NewOutboxMessage> events = lifecycle();
        List<OutboundMessage> wire = new ArrayList<>();
        for (NewOutboxMessage m : events) {
            String grown =
                    m.payload().replaceFirst("^\\{", "{\"capturedBy\":\"terminal-7\",\"channel\":{\"web\":true},");
            assertTrue(grown.contains("terminal-7"), grown);
            wire.add(Wires.of(withPayload(m, grown)));
        }
        publish(wire);
        startConsumers(1);

        await().atMost(Duration.ofSeconds(30)).until(() -> applied() == 4L);
        assertEquals(
                List.of("CAPTURE", "REFUND"),
                db.rows("SELECT entry_type FROM ledger_entries ORDER BY entry_seq").stream()
                        .map(r -> r.get("entry_type"))
                        .toList());
        assertEquals(0, broker.messageCount(Topology.deadLetterQueueOf(LedgerConsumer.QUEUE)));
    }

    @Test
    void duplicatesOfEveryMessageDeliveredToTwoConsumersApplyOnce() {
        int orders = 30;
        List<OutboundMessage> wire = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            for (NewOutboxMessage m : lifecycle()) {
                OutboundMessage w = Wires.of(m);
                wire.add(w);
                wire.add(w); // the relay published it twice (crash before mark): same messageId
            }
        }
        publish(wire);
        startConsumers(2);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> applied()
                                + consumers.stream()
                                        .mapToLong(c -> c.runner().stats().duplicates()
                                                + c.runner().stats().stale())
                                        .sum()
                        == 8L * orders);
        assertEquals(2L * orders, db.count("SELECT count(*) FROM ledger_entries"));
        assertEquals(4L * orders, db.count("SELECT count(*) FROM processed_messages"));
        assertEquals(4L * orders, db.count("SELECT count(*) FROM ledger_journal"), "each message journaled once");
        assertEquals(orders, db.count("SELECT count(*) FROM ledger_entries WHERE entry_type = 'CAPTURE'"));
    }

    @Test
    void twoDifferentMessagesAskingForTheSameBookingBookItOnce() {
        // a producer bug emits a second payment.captured (new message id, next version) for the
        // same payment: transport dedupe cannot see it, the ledger's business key does
        List<NewOutboxMessage> events = lifecycle().subList(0, 2);
        NewOutboxMessage captured = events.get(1);
        NewOutboxMessage again = new NewOutboxMessage(
                UUID.randomUUID(),
                captured.aggregateType(),
                captured.aggregateId(),
                3L,
                captured.messageType(),
                captured.messageVersion(),
                captured.exchangeName(),
                captured.routingKey(),
                captured.payload(),
                captured.headers(),
                null,
                null,
                null,
                null);
        publish(List.of(Wires.of(events.get(0)), Wires.of(captured), Wires.of(again)));
        startConsumers(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> applied() == 3);
        assertEquals(1, db.count("SELECT count(*) FROM ledger_entries"));
        assertEquals(3, db.count("SELECT count(*) FROM processed_messages"), "both messages were processed");
    }
}
