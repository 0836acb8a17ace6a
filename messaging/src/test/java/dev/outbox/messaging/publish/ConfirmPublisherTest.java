package dev.outbox.messaging.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.AMQImpl;
import dev.outbox.kernel.outbox.ErrorCode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The publisher's bookkeeping with the broker's frames played by hand, in the orders brokers
 * really send them: the sequence map under single and multiple acks, returns before acks
 * (RabbitMQ) and after nacks (Qpid), channel death with messages in flight, and every message
 * reported exactly once. The broker-backed behaviour is {@code ConfirmPublisherIT}'s.
 */
class ConfirmPublisherTest {
    private final FakeChannel broker = new FakeChannel();
    private final List<String> outcomes = new CopyOnWriteArrayList<>();
    private ConfirmPublisher<String> publisher;

    @BeforeEach
    void open() throws IOException {
        publisher = ConfirmPublisher.open(broker.connection, 4, MAX_BODY, new PublishListener<>() {
            @Override
            public void confirmed(String tag, long confirmNanos) {
                outcomes.add(tag + " confirmed");
            }

            @Override
            public void failed(String tag, ErrorCode code, String detail) {
                outcomes.add(tag + " " + code);
            }

            @Override
            public void suspect(String tag, ErrorCode code, String detail) {
                outcomes.add(tag + " suspect " + code);
            }

            @Override
            public void unknown(String tag, String detail) {
                outcomes.add(tag + " unknown");
            }
        });
    }

    static final int MAX_BODY = 1_000;

    private static OutboundMessage message(String tag, AMQP.BasicProperties.Builder props, int bodyBytes) {
        return new OutboundMessage(
                "orders.events", "order.created", props.messageId("id-" + tag).build(), new byte[bodyBytes]);
    }

    private void send(String... tags) throws Exception {
        for (String tag : tags) {
            assertTrue(publisher.acquireSlot(Duration.ZERO), "a free slot for " + tag);
            publisher.publish(
                    new OutboundMessage(
                            "orders.events",
                            "order.created",
                            new AMQP.BasicProperties.Builder()
                                    .messageId("id-" + tag)
                                    .build(),
                            new byte[0]),
                    tag);
        }
    }

    @Test
    void aMultipleAckSettlesEverythingUpToItsSequenceOnceAndFreesTheWindow() throws Exception {
        send("a", "b", "c", "d");
        assertEquals(0, publisher.availableSlots());
        broker.ack(2, true);
        assertEquals(List.of("a confirmed", "b confirmed"), outcomes);
        assertEquals(2, publisher.availableSlots());
        broker.ack(4, false);
        broker.ack(3, false);
        broker.ack(3, false); // a duplicate frame settles nothing twice
        broker.ack(4, true);
        assertEquals(List.of("a confirmed", "b confirmed", "d confirmed", "c confirmed"), outcomes);
        assertEquals(4, publisher.availableSlots());
        assertEquals(0, publisher.inFlightCount());
    }

    @Test
    void aReturnBeforeItsAckMakesTheMessageUnroutableNotConfirmed() throws Exception {
        send("a", "b");
        broker.returnUnroutable("id-a"); // RabbitMQ: the return, then the ack
        broker.ack(2, true);
        assertEquals(List.of("a UNROUTABLE", "b confirmed"), outcomes);
    }

    @Test
    void aNackFollowedByItsReturnIsUnroutable() throws Exception {
        send("a");
        broker.nack(1, false); // Qpid Broker-J: the nack, then the return saying why
        assertEquals(List.of(), outcomes, "undecided until the return or the next confirm frame");
        broker.returnUnroutable("id-a");
        assertEquals(List.of("a UNROUTABLE"), outcomes);
        assertEquals(4, publisher.availableSlots());
    }

    @Test
    void aNackWithoutAReturnIsDecidedByTheNextConfirmFrame() throws Exception {
        send("a", "b");
        broker.nack(1, false);
        broker.ack(2, false);
        assertEquals(List.of("a NACKED", "b confirmed"), outcomes);
    }

    @Test
    void theNackStreakCountsNackedMessagesSinceTheLastAck() throws Exception {
        send("a", "b", "c", "d");
        broker.nack(2, true);
        assertEquals(2, publisher.nackStreak());
        broker.nack(3, false);
        assertEquals(3, publisher.nackStreak());
        broker.ack(4, false);
        assertEquals(0, publisher.nackStreak(), "one ack: the channel works");
    }

    @Test
    void aNackWithoutAReturnIsDecidedWhenTheGraceRunsOut() throws Exception {
        send("a");
        broker.nack(1, false);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (outcomes.isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(List.of("a NACKED"), outcomes);
        broker.returnUnroutable("id-a"); // a return after the grace changes nothing
        assertEquals(List.of("a NACKED"), outcomes);
    }

    @Test
    void aDeadChannelFailsEveryMessageInFlightOnceAndLateFramesChangeNothing() throws Exception {
        send("a", "b", "c");
        broker.ack(1, false);
        broker.shutdown(new ShutdownSignalException(true, false, null, broker.connection));
        assertEquals(List.of("a confirmed", "b CONNECTION_LOST", "c CONNECTION_LOST"), outcomes);
        broker.ack(3, true);
        broker.returnUnroutable("id-b");
        assertEquals(3, outcomes.size());
        assertEquals(4, publisher.availableSlots());
        assertFalse(publisher.isOpen());
    }

    @Test
    void aChannelClosedForAMissingExchangeMakesEveryMessageInFlightASuspect() throws Exception {
        send("a", "b");
        broker.shutdown(new ShutdownSignalException(
                false, false, new AMQImpl.Channel.Close(404, "NOT_FOUND - no exchange 'x'", 60, 40), broker.channel));
        assertEquals(List.of("a suspect EXCHANGE_NOT_FOUND", "b suspect EXCHANGE_NOT_FOUND"), outcomes);
    }

    @Test
    void aPublishTheChannelRefusesIsNotInFlightAndItsSlotComesBack() throws Exception {
        IOException refused = new IOException("socket closed");
        broker.failNextPublish(refused);
        assertTrue(publisher.acquireSlot(Duration.ZERO));
        IOException thrown = assertThrows(
                IOException.class,
                () -> publisher.publish(
                        new OutboundMessage(
                                "orders.events",
                                "k",
                                new AMQP.BasicProperties.Builder()
                                        .messageId("id-x")
                                        .build(),
                                new byte[0]),
                        "x"));
        assertSame(refused, thrown);
        assertFalse(publisher.isOpen(), "the client took a sequence number for it: the channel is retired");
        assertEquals(0, publisher.inFlightCount());
        assertEquals(4, publisher.availableSlots());
        assertEquals(List.of(), outcomes, "the caller still owns an unsent message: no outcome is reported");
    }

    @Test
    void expiryFailsTheOverdueMessagesAsConfirmTimeouts() throws Exception {
        send("a", "b");
        assertEquals(0, publisher.expire(Duration.ofHours(1)));
        assertEquals(2, publisher.expire(Duration.ZERO));
        assertEquals(List.of("a CONFIRM_TIMEOUT", "b CONFIRM_TIMEOUT"), outcomes);
        broker.ack(2, true);
        assertEquals(2, outcomes.size(), "a confirm after the timeout is not a second outcome");
    }

    @Test
    void abandonHandsBackEveryUnsettledMessageWithoutReportingIt() throws Exception {
        send("a", "b", "c");
        broker.nack(1, false); // a waits for a possible return
        broker.returnUnroutable("id-b"); // b's return came, its ack has not
        List<String> back =
                publisher.abandon().stream().map(ConfirmPublisher.InFlight::tag).toList();
        assertEquals(List.of("a", "b", "c"), back);
        publisher.close();
        broker.ack(3, true);
        assertEquals(List.of(), outcomes, "abandoned messages are the owner's: no outcome is reported");
        assertEquals(4, publisher.availableSlots());
    }

    @Test
    void aMessageTheClientCannotEncodeFailsBeforeItTakesASequenceNumberAndLaterConfirmsLandOnTheirOwn()
            throws Exception {
        send("a");
        assertTrue(publisher.acquireSlot(Duration.ZERO));
        publisher.publish(message("b", new AMQP.BasicProperties.Builder().correlationId("c".repeat(300)), 0), "b");
        send("c");
        assertEquals(List.of("id-a", "id-c"), broker.published, "b never reached the broker");
        assertEquals(3, broker.nextSeqNo(), "b took no sequence number: client and broker still agree");
        broker.ack(2, true); // the broker's tag 2 is c
        assertEquals(List.of("b UNENCODABLE", "a confirmed", "c confirmed"), outcomes);
        assertEquals(4, publisher.availableSlots());
        assertTrue(publisher.isOpen(), "a refused message is no reason to give up the channel");
    }

    @Test
    void everyLimitOfTheProtocolIsNamedInTheReason() throws Exception {
        List<Object[]> cases = List.of(
                new Object[] {new AMQP.BasicProperties.Builder().type("t".repeat(256)), 0, "property type"},
                new Object[] {new AMQP.BasicProperties.Builder().correlationId("é".repeat(128)), 0, "correlationId"},
                new Object[] {
                    new AMQP.BasicProperties.Builder()
                            .headers(java.util.Map.of("big", new java.math.BigInteger("18446744073709551616"))),
                    0,
                    "header 'big'"
                },
                new Object[] {
                    new AMQP.BasicProperties.Builder().headers(java.util.Map.of("n".repeat(256), "v")), 0, "name"
                },
                new Object[] {
                    new AMQP.BasicProperties.Builder()
                            .headers(java.util.Map.of("dec", new java.math.BigDecimal("1e-300"))),
                    0,
                    "header 'dec'"
                },
                new Object[] {
                    new AMQP.BasicProperties.Builder().headers(java.util.Map.of("h", "x".repeat(200_000))),
                    0,
                    "frame_max"
                },
                new Object[] {new AMQP.BasicProperties.Builder(), MAX_BODY + 1, "message size limit"});
        for (Object[] c : cases) {
            outcomes.clear();
            assertTrue(publisher.acquireSlot(Duration.ZERO));
            publisher.publish(message("x", (AMQP.BasicProperties.Builder) c[0], (Integer) c[1]), "x");
            assertEquals(List.of("x UNENCODABLE"), outcomes, String.valueOf(c[2]));
            assertEquals(4, publisher.availableSlots());
        }
        assertEquals(List.of(), broker.published);
        assertEquals(1, broker.nextSeqNo());
    }

    @Test
    void anythingBasicPublishThrowsRetiresTheChannelAndHandsBackWhatWasInFlight() throws Exception {
        send("a", "b");
        broker.failNextPublish(new IllegalStateException("something the checks did not foresee"));
        assertTrue(publisher.acquireSlot(Duration.ZERO));
        publisher.publish(message("c", new AMQP.BasicProperties.Builder(), 0), "c");
        assertEquals(List.of("a unknown", "b unknown", "c CHANNEL_ERROR"), outcomes);
        assertFalse(publisher.isOpen(), "nothing more may be sent where confirms could be filed a message late");
        assertTrue(publisher.retiredBecause().isPresent());
        broker.ack(2, true); // late confirms for a and b settle nothing a second time
        assertEquals(3, outcomes.size());
        assertEquals(4, publisher.availableSlots());
        assertTrue(publisher.acquireSlot(Duration.ZERO));
        assertThrows(
                IOException.class, () -> publisher.publish(message("d", new AMQP.BasicProperties.Builder(), 0), "d"));
        assertEquals(4, publisher.availableSlots());
    }

    @Test
    void anEncodingRefusalTheChecksMissedParksTheMessageAndRetiresTheChannel() throws Exception {
        send("a");
        broker.failNextPublish(new IllegalArgumentException("Invalid value type: a future encoder rule"));
        assertTrue(publisher.acquireSlot(Duration.ZERO));
        publisher.publish(message("b", new AMQP.BasicProperties.Builder(), 0), "b");
        assertEquals(List.of("a unknown", "b UNENCODABLE"), outcomes);
        assertFalse(publisher.isOpen());
    }

    @Test
    void aPublishThatFindsTheChannelClosedByTheBrokerLeavesTheSuspectsToTheCloseItself() throws Exception {
        send("a", "b");
        ShutdownSignalException notFound = new ShutdownSignalException(
                false, false, new AMQImpl.Channel.Close(404, "NOT_FOUND - no exchange 'x'", 60, 40), broker.channel);
        broker.closedByBroker(notFound);
        assertTrue(publisher.acquireSlot(Duration.ZERO));
        assertThrows(
                IOException.class, () -> publisher.publish(message("c", new AMQP.BasicProperties.Builder(), 0), "c"));
        assertFalse(publisher.isOpen());
        broker.listenersLearnOfTheClose();
        assertEquals(
                List.of("a suspect EXCHANGE_NOT_FOUND", "b suspect EXCHANGE_NOT_FOUND"),
                outcomes,
                "the close's own reason decides: the row that caused it must be found and parked");
        assertEquals(4, publisher.availableSlots());
    }

    @Test
    void aListenerThatThrowsLosesOnlyItsOwnReportAndNoSlot() throws Exception {
        FakeChannel other = new FakeChannel();
        List<String> seen = new CopyOnWriteArrayList<>();
        ConfirmPublisher<String> touchy = ConfirmPublisher.open(other.connection, 4, MAX_BODY, new PublishListener<>() {
            @Override
            public void confirmed(String tag, long confirmNanos) {
                if (tag.equals("b")) {
                    throw new ArithmeticException("long overflow"); // as a 4713 BC created_at once did
                }
                seen.add(tag + " confirmed");
            }

            @Override
            public void failed(String tag, ErrorCode code, String detail) {
                seen.add(tag + " " + code);
            }

            @Override
            public void suspect(String tag, ErrorCode code, String detail) {
                seen.add(tag + " suspect");
            }

            @Override
            public void unknown(String tag, String detail) {
                seen.add(tag + " unknown");
            }
        });
        for (String tag : List.of("a", "b", "c")) {
            assertTrue(touchy.acquireSlot(Duration.ZERO));
            touchy.publish(message(tag, new AMQP.BasicProperties.Builder(), 0), tag);
        }
        other.ack(3, true);
        assertEquals(List.of("a confirmed", "c confirmed"), seen, "c's report survives b's listener failing");
        assertEquals(4, touchy.availableSlots(), "and no slot is lost");
        assertEquals(0, touchy.inFlightCount());
    }
}
