package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.outbox.testkit.RequiresRabbitMq;
import dev.outbox.testkit.TestBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class TopologyIT {
    private static final String QUEUE = "topology-it.order-events";

    @Test
    void declaringTwiceIsHarmlessAndCreatesTheDeclaredQueuesAndBindings() {
        TestBroker broker = TestBroker.get();
        broker.withChannel(ch -> Topology.declare(ch, QueueType.CLASSIC));
        broker.withChannel(ch -> Topology.declare(ch, QueueType.CLASSIC));
        broker.purgeIfExists(QUEUE);
        broker.withChannel(ch -> ch.basicPublish(Topology.ORDERS_EXCHANGE, "order.shipped", true, null, new byte[0]));
        org.awaitility.Awaitility.await().until(() -> broker.messageCount(QUEUE) == 1);
        assertEquals(0, broker.messageCount(Topology.deadLetterQueueOf(QUEUE)));
        assertEquals("topology-it.order-events.dlq", Topology.deadLetterQueueOf(QUEUE));
        broker.purgeIfExists(QUEUE);
    }

    /**
     * Quorum: the queue and its dead-letter queue are quorum queues (deliveries carry
     * {@code x-delivery-count}, which classic queues never add), and declaring the same queue as
     * classic afterwards is refused (406): the type of a queue cannot change in place.
     */
    @Test
    @RequiresRabbitMq("quorum queues")
    void quorumDeclaresQuorumQueuesThatCountDeliveries() throws Exception {
        TestBroker broker = TestBroker.get();
        String dlq = Topology.deadLetterQueueOf(QUEUE);
        broker.deleteQueue(QUEUE);
        broker.deleteQueue(dlq);
        try {
            broker.withChannel(ch -> Topology.declare(ch, QueueType.QUORUM));
            broker.withChannel(ch -> Topology.declare(ch, QueueType.QUORUM));
            broker.withChannel(ch -> ch.basicPublish(
                    Topology.ORDERS_EXCHANGE, "order.shipped", true, null, "{}".getBytes(StandardCharsets.UTF_8)));
            Awaitility.await().until(() -> broker.messageCount(QUEUE) == 1);
            try (Channel ch = broker.connection().createChannel()) {
                GetResponse first = ch.basicGet(QUEUE, false);
                assertEquals(0L, ((Number) first.getProps().getHeaders().get("x-delivery-count")).longValue());
                ch.basicNack(first.getEnvelope().getDeliveryTag(), false, true);
                GetResponse second = Awaitility.await().until(() -> ch.basicGet(QUEUE, false), r -> r != null);
                assertEquals(1L, ((Number) second.getProps().getHeaders().get("x-delivery-count")).longValue());
                ch.basicAck(second.getEnvelope().getDeliveryTag(), false);
            }
            IOException refused = assertThrows(IOException.class, () -> {
                try (Connection c = broker.connectionFactory().newConnection("topology-it-classic");
                        Channel ch = c.createChannel()) {
                    Topology.declare(ch, QueueType.CLASSIC);
                }
            });
            assertTrue(String.valueOf(refused.getCause()).contains("406"), String.valueOf(refused.getCause()));
            try (Connection c = broker.connectionFactory().newConnection("topology-it-dlq");
                    Channel ch = c.createChannel()) {
                // passive: exists, and declaring it as a quorum queue again is accepted
                ch.queueDeclare(dlq, true, false, false, Map.of("x-queue-type", "quorum"));
            }
        } finally {
            // the other tests of this vhost declare these queues classic
            broker.deleteQueue(QUEUE);
            broker.deleteQueue(dlq);
        }
    }
}
