package dev.outbox.messaging.publish;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.testkit.RabbitAdmin;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.RequiresRabbitMq;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The confirm publisher against a real broker: what the broker decides, the broker decides here. */
class ConfirmPublisherIT {
    private static final String EXCHANGE = "outbox.test.confirms";
    private static final long MAX_BODY = 16 * 1024 * 1024;
    private final TestBroker broker = TestBroker.get();
    private Connection connection;
    private final Map<String, String> outcomes = new ConcurrentHashMap<>();
    private final AtomicInteger reports = new AtomicInteger();

    private final PublishListener<String> listener = new PublishListener<>() {
        @Override
        public void confirmed(String tag, long confirmNanos) {
            record(tag, "CONFIRMED");
        }

        @Override
        public void failed(String tag, ErrorCode code, String detail) {
            record(tag, code.name());
        }

        @Override
        public void suspect(String tag, ErrorCode code, String detail) {
            record(tag, "SUSPECT " + code.name());
        }

        @Override
        public void unknown(String tag, String detail) {
            record(tag, "UNKNOWN");
        }

        private void record(String tag, String outcome) {
            reports.incrementAndGet();
            String previous = outcomes.put(tag, outcome);
            if (previous != null) {
                outcomes.put(tag, "REPORTED TWICE: " + previous + " and " + outcome);
            }
        }
    };

    @BeforeEach
    void setUp() throws Exception {
        broker.declareTopicExchange(EXCHANGE);
        connection = broker.connectionFactory().newConnection("confirm-publisher-it");
    }

    @AfterEach
    void tearDown() throws Exception {
        if (connection.isOpen()) {
            connection.close();
        }
    }

    private static OutboundMessage message(String exchange, String key) {
        String id = UUID.randomUUID().toString();
        AMQP.BasicProperties p =
                new AMQP.BasicProperties.Builder().messageId(id).deliveryMode(2).build();
        return new OutboundMessage(exchange, key, p, "{}".getBytes());
    }

    @Test
    void everyMessageIsSettledExactlyOnceAcrossMultipleAcks() throws Exception {
        try (RecordingQueue q = broker.bindQueue(EXCHANGE, "routed")) {
            ConfirmPublisher<String> p = ConfirmPublisher.open(connection, 64, MAX_BODY, listener);
            int n = 2_000;
            for (int i = 0; i < n; i++) {
                assertTrue(p.acquireSlot(Duration.ofSeconds(5)));
                OutboundMessage m = message(EXCHANGE, "routed");
                p.publish(m, m.messageId());
            }
            assertTrue(p.awaitSettled(Duration.ofSeconds(20)));
            assertEquals(n, reports.get(), "one report per message");
            assertEquals(
                    n, outcomes.values().stream().filter("CONFIRMED"::equals).count());
            assertEquals(64, p.availableSlots(), "every slot came back");
            assertEquals(n, q.await(n, Duration.ofSeconds(10)).size());
            p.close();
        }
    }

    @Test
    void aReturnedMessageIsNeverReportedConfirmed() throws Exception {
        try (RecordingQueue q = broker.bindQueue(EXCHANGE, "routed")) {
            ConfirmPublisher<String> p = ConfirmPublisher.open(connection, 16, MAX_BODY, listener);
            OutboundMessage good = message(EXCHANGE, "routed");
            OutboundMessage lost = message(EXCHANGE, "nobody.listens");
            for (OutboundMessage m : List.of(good, lost)) {
                p.acquireSlot(Duration.ofSeconds(1));
                p.publish(m, m.messageId());
            }
            assertTrue(p.awaitSettled(Duration.ofSeconds(10)));
            assertEquals("CONFIRMED", outcomes.get(good.messageId()));
            assertEquals("UNROUTABLE", outcomes.get(lost.messageId()));
            p.close();
        }
    }

    @Test
    void aMissingExchangeClosesTheChannelAndMakesSuspectsThatIsolationResolves() throws Exception {
        try (RecordingQueue q = broker.bindQueue(EXCHANGE, "routed")) {
            ConfirmPublisher<String> p = ConfirmPublisher.open(connection, 16, MAX_BODY, listener);
            OutboundMessage bad = message("outbox.test.no-such-exchange", "routed");
            p.acquireSlot(Duration.ofSeconds(1));
            p.publish(bad, bad.messageId());
            await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.containsKey(bad.messageId()));
            assertEquals("SUSPECT EXCHANGE_NOT_FOUND", outcomes.get(bad.messageId()));
            assertTrue(!p.isOpen(), "the broker closed the channel");
            assertTrue(connection.isOpen(), "a channel error leaves the connection alone");

            OutboundMessage good = message(EXCHANGE, "routed");
            assertEquals(
                    ErrorCode.EXCHANGE_NOT_FOUND,
                    ConfirmPublisher.publishAlone(connection, bad, Duration.ofSeconds(5), MAX_BODY)
                            .failure());
            assertTrue(ConfirmPublisher.publishAlone(connection, good, Duration.ofSeconds(5), MAX_BODY)
                    .confirmed());
            assertEquals(
                    good.messageId(), q.await(1, Duration.ofSeconds(5)).get(0).messageId());
            assertEquals(
                    ErrorCode.UNROUTABLE,
                    ConfirmPublisher.publishAlone(
                                    connection, message(EXCHANGE, "nobody.listens"), Duration.ofSeconds(5), MAX_BODY)
                            .failure());
        }
    }

    @Test
    void aMessageAloneOnAConnectionThatIsGoneWasNotSentAndSaysSo() throws Exception {
        // a suspect claimed while the broker connection is going: the attempt tells nothing about
        // the row, and must not spend its attempts (SuspectIsolation gives it back uncounted)
        try (RecordingQueue q = broker.bindQueue(EXCHANGE, "routed")) {
            Connection gone = broker.connectionFactory().newConnection("confirm-publisher-it-gone");
            gone.abort();
            ConfirmPublisher.SoloOutcome outcome =
                    ConfirmPublisher.publishAlone(gone, message(EXCHANGE, "routed"), Duration.ofSeconds(5), MAX_BODY);
            assertTrue(!outcome.confirmed() && !outcome.handedOver(), outcome.toString());
            assertTrue(outcome.notSent(), outcome.toString());
            assertTrue(outcome.failure().retryable(), outcome.toString());
            // and one that reached the broker and was refused is no such thing
            ConfirmPublisher.SoloOutcome refused = ConfirmPublisher.publishAlone(
                    connection, message("outbox.test.no-such-exchange", "routed"), Duration.ofSeconds(5), MAX_BODY);
            assertTrue(refused.handedOver() && !refused.notSent(), refused.toString());
            assertEquals(0, q.drain().size());
        }
    }

    @Test
    void closingAChannelTheBrokerAlreadyClosedStillReportsEveryMessageInFlight() throws Exception {
        // the relay's publishing thread may notice the broker's close and close the channel itself
        // before the shutdown sweep ran: nothing in flight may be lost without a report
        ConfirmPublisher<String> p = ConfirmPublisher.open(connection, 64, MAX_BODY, listener);
        List<String> ids = new java.util.ArrayList<>();
        OutboundMessage bad = message("outbox.test.no-such-exchange", "x");
        p.acquireSlot(Duration.ofSeconds(1));
        p.publish(bad, bad.messageId());
        ids.add(bad.messageId());
        for (int i = 0; i < 20; i++) {
            OutboundMessage m = message(EXCHANGE, "routed");
            p.acquireSlot(Duration.ofSeconds(1));
            try {
                p.publish(m, m.messageId());
                ids.add(m.messageId());
            } catch (java.io.IOException notSent) {
                break; // the channel is gone: this one was never sent and stays the caller's
            }
        }
        p.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.keySet().containsAll(ids));
        assertEquals(ids.size(), reports.get(), "every message sent was reported once");
        assertTrue(outcomes.values().stream().noneMatch(o -> o.startsWith("REPORTED TWICE")));
    }

    @Test
    void aClosedConnectionFailsEverythingInFlightAsConnectionLost() throws Exception {
        // through a proxy that stops moving bytes: the broker can neither confirm nor return anything,
        // so every message is still in flight when the connection dies (no race with fast acks)
        try (TcpProxy proxy = TcpProxy.start(broker.host(), broker.port())) {
            ConnectionFactory viaProxy = broker.connectionFactory();
            viaProxy.setUri(broker.uriVia(proxy.host(), proxy.port()));
            Connection stalled = viaProxy.newConnection("confirm-publisher-it-stalled");
            ConfirmPublisher<String> p = ConfirmPublisher.open(stalled, 1_000, MAX_BODY, listener);
            proxy.stall();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 50; i++) { // few and small: they fit the socket buffers, publish never blocks
                p.acquireSlot(Duration.ofSeconds(1));
                OutboundMessage m = message(EXCHANGE, "anything");
                p.publish(m, m.messageId());
                ids.add(m.messageId());
            }
            proxy.resetAll(); // the connection dies the way a network fails: a reset, no close handshake
            await().atMost(Duration.ofSeconds(10)).until(() -> reports.get() == ids.size());
            assertEquals(ids.size(), outcomes.size(), "each reported once");
            ids.forEach(id -> assertEquals("CONNECTION_LOST", outcomes.get(id), id));
        }
    }

    @Test
    void overdueConfirmsExpireAsConfirmTimeout() throws Exception {
        // through a stalled proxy no confirm can arrive, so whether the message expires depends on
        // expire() alone; a queue is bound, so the late ack after the stall is a plain ack
        try (RecordingQueue q = broker.bindQueue(EXCHANGE, "routed");
                TcpProxy proxy = TcpProxy.start(broker.host(), broker.port())) {
            ConnectionFactory viaProxy = broker.connectionFactory();
            viaProxy.setUri(broker.uriVia(proxy.host(), proxy.port()));
            Connection stalled = viaProxy.newConnection("confirm-publisher-it-expire");
            try {
                ConfirmPublisher<String> p = ConfirmPublisher.open(stalled, 8, MAX_BODY, listener);
                proxy.stall();
                assertTrue(p.acquireSlot(Duration.ofSeconds(1)));
                OutboundMessage overdue = message(EXCHANGE, "routed");
                p.publish(overdue, overdue.messageId());

                assertEquals(0, p.expire(Duration.ofHours(1)), "not overdue yet");
                assertEquals(1, p.inFlightCount());
                await().atMost(Duration.ofSeconds(5)).until(() -> p.expire(Duration.ofMillis(200)) == 1);
                assertEquals("CONFIRM_TIMEOUT", outcomes.get(overdue.messageId()));
                assertEquals(0, p.inFlightCount());
                assertEquals(8, p.availableSlots(), "its window slot came back");

                // the broker's ack arrives late, after a later message's: it is not reported again
                proxy.resume();
                assertTrue(p.acquireSlot(Duration.ofSeconds(1)));
                OutboundMessage next = message(EXCHANGE, "routed");
                p.publish(next, next.messageId());
                await().atMost(Duration.ofSeconds(10)).until(() -> "CONFIRMED".equals(outcomes.get(next.messageId())));
                assertEquals(2, q.await(2, Duration.ofSeconds(10)).size(), "the expired message did reach the queue");
                assertEquals("CONFIRM_TIMEOUT", outcomes.get(overdue.messageId()));
                assertEquals(2, reports.get(), "one report per message");
                p.close();
            } finally {
                stalled.abort(1_000);
            }
        }
    }

    @Test
    void theClientTakesASequenceNumberBeforeItRefusesAMessageAndKeepsTheChannelOpen() throws Exception {
        // the library edge the publisher is built around (and FakeChannel models): after this,
        // a map keyed by getNextPublishSeqNo() would file the broker's next ack one message late
        try (Channel ch = connection.createChannel()) {
            ch.confirmSelect();
            assertEquals(1, ch.getNextPublishSeqNo());
            AMQP.BasicProperties tooLong = new AMQP.BasicProperties.Builder()
                    .messageId("m")
                    .correlationId("c".repeat(256))
                    .build();
            assertThrows(
                    IllegalArgumentException.class,
                    () -> ch.basicPublish(EXCHANGE, "routed", true, tooLong, new byte[0]));
            assertEquals(2, ch.getNextPublishSeqNo(), "the number was used by a message the broker never saw");
            AMQP.BasicProperties hugeInteger = new AMQP.BasicProperties.Builder()
                    .messageId("m")
                    .headers(Map.of("n", new java.math.BigInteger("18446744073709551616")))
                    .build();
            assertThrows(
                    IllegalArgumentException.class,
                    () -> ch.basicPublish(EXCHANGE, "routed", true, hugeInteger, new byte[0]));
            assertEquals(3, ch.getNextPublishSeqNo());
            assertTrue(ch.isOpen(), "the channel stays open: nothing tells the publisher to stop");
        }
    }

    @Test
    void unencodableMessagesBetweenGoodOnesAreRefusedAndEveryGoodOneIsConfirmedAndDelivered() throws Exception {
        try (RecordingQueue q = broker.bindQueue(EXCHANGE, "#")) {
            ConfirmPublisher<String> p = ConfirmPublisher.open(connection, 16, MAX_BODY, listener);
            List<OutboundMessage> good = new ArrayList<>();
            List<OutboundMessage> bad = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                OutboundMessage m;
                if (i % 3 == 1) {
                    String id = UUID.randomUUID().toString();
                    AMQP.BasicProperties.Builder b =
                            new AMQP.BasicProperties.Builder().messageId(id).deliveryMode(2);
                    if (i % 2 == 0) {
                        b.correlationId("x".repeat(300));
                    } else {
                        b.headers(Map.of("huge", new java.math.BigInteger("18446744073709551616")));
                    }
                    m = new OutboundMessage(EXCHANGE, "routed", b.build(), "{}".getBytes());
                    bad.add(m);
                } else {
                    m = message(EXCHANGE, "routed");
                    good.add(m);
                }
                assertTrue(p.acquireSlot(Duration.ofSeconds(5)));
                p.publish(m, m.messageId());
            }
            assertTrue(p.awaitSettled(Duration.ofSeconds(10)));
            assertTrue(p.isOpen());
            good.forEach(m -> assertEquals("CONFIRMED", outcomes.get(m.messageId())));
            bad.forEach(m -> assertEquals("UNENCODABLE", outcomes.get(m.messageId())));
            List<String> delivered = q.await(good.size(), Duration.ofSeconds(10)).stream()
                    .map(TestBroker.Received::messageId)
                    .toList();
            assertEquals(good.stream().map(OutboundMessage::messageId).toList(), delivered);
            p.close();
        }
    }

    @Test
    @RequiresRabbitMq(value = "RabbitMQ's max_message_size, lowered with rabbitmqctl eval", rabbitmqctl = true)
    void aBodyOverTheBrokersLimitIsTheMessagesFaultAndNotItsNeighbours() throws Exception {
        // the relay's own limit is set above the broker's here, as a misconfiguration would: the
        // broker closes the channel (406 on basic.publish), every message in flight is a suspect,
        // and isolation pins it on the one message, which will be refused every time
        int brokerLimit = 64 * 1024;
        String before = RabbitAdmin.run("eval", "application:get_env(rabbit, max_message_size).")
                .trim();
        RabbitAdmin.run("eval", "application:set_env(rabbit, max_message_size, " + brokerLimit + ").");
        try (RecordingQueue q = broker.bindQueue(EXCHANGE, "routed")) {
            Connection fresh = broker.connectionFactory().newConnection("confirm-publisher-it-size");
            try {
                ConfirmPublisher<String> p = ConfirmPublisher.open(fresh, 16, Long.MAX_VALUE, listener);
                OutboundMessage big = new OutboundMessage(
                        EXCHANGE,
                        "routed",
                        new AMQP.BasicProperties.Builder()
                                .messageId(UUID.randomUUID().toString())
                                .build(),
                        new byte[brokerLimit + 1]);
                p.acquireSlot(Duration.ofSeconds(1));
                p.publish(big, big.messageId());
                await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.containsKey(big.messageId()));
                assertEquals("SUSPECT UNENCODABLE", outcomes.get(big.messageId()));
                ConfirmPublisher.SoloOutcome alone =
                        ConfirmPublisher.publishAlone(fresh, big, Duration.ofSeconds(5), Long.MAX_VALUE);
                assertEquals(ErrorCode.UNENCODABLE, alone.failure(), alone.detail());
                assertEquals(
                        ErrorCode.UNENCODABLE,
                        ConfirmPublisher.publishAlone(fresh, big, Duration.ofSeconds(5), brokerLimit)
                                .failure(),
                        "with the limit configured right it is never sent at all");
                assertTrue(ConfirmPublisher.publishAlone(
                                fresh, message(EXCHANGE, "routed"), Duration.ofSeconds(5), MAX_BODY)
                        .confirmed());
                assertEquals(1, q.await(1, Duration.ofSeconds(5)).size(), "only the good message arrived");
            } finally {
                fresh.abort(1_000);
            }
        } finally {
            String restore = before.startsWith("{ok,") ? before.substring(4, before.length() - 1) : "134217728";
            RabbitAdmin.run("eval", "application:set_env(rabbit, max_message_size, " + restore + ").");
        }
    }
}
