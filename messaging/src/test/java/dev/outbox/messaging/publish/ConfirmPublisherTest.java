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
        publisher = ConfirmPublisher.open(broker.connection, 4, new PublishListener<>() {
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
        });
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
}
