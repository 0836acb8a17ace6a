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
     * classic afterwards is refused (406): the type of a queue cannot change in place. The queue
     * has its file's delivery limit (3 here) and its dead-letter queue as target: a message
     * requeued past the limit is moved there by the broker, not dropped.
     */
    @Test
    @RequiresRabbitMq("quorum queues")
    void quorumDeclaresQuorumQueuesThatCountDeliveriesAndDeadLetterPastTheirLimit() throws Exception {
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
                // delivered 1 + 3 times: the fourth requeue is past the limit of 3
                for (long count = 0; count <= 3; count++) {
                    GetResponse r = Awaitility.await().until(() -> ch.basicGet(QUEUE, false), x -> x != null);
                    assertEquals(count, ((Number) r.getProps().getHeaders().get("x-delivery-count")).longValue());
                    ch.basicNack(r.getEnvelope().getDeliveryTag(), false, true);
                }
                Awaitility.await("moved to the dead-letter queue, not dropped")
                        .until(() -> broker.messageCount(dlq) == 1);
                assertEquals(0, broker.messageCount(QUEUE));
                GetResponse dead = ch.basicGet(dlq, true);
                assertEquals(
                        "delivery_limit",
                        String.valueOf(dead.getProps().getHeaders().get("x-first-death-reason")));
            }
            IOException refused = assertThrows(IOException.class, () -> {
                try (Connection c = broker.connectionFactory().newConnection("topology-it-classic");
                        Channel ch = c.createChannel()) {
                    Topology.declare(ch, QueueType.CLASSIC);
                }
            });
            assertTrue(String.valueOf(refused.getCause()).contains("406"), String.valueOf(refused.getCause()));
            IOException older = assertThrows(IOException.class, () -> {
                try (Connection c = broker.connectionFactory().newConnection("topology-it-dlq");
                        Channel ch = c.createChannel()) {
                    // as versions before issue 21 declared it: without a delivery limit
                    ch.queueDeclare(dlq, true, false, false, Map.of("x-queue-type", "quorum"));
                }
            });
            assertTrue(
                    String.valueOf(older.getCause()).contains("x-delivery-limit"),
                    "the upgrade the README describes: " + older.getCause());
        } finally {
            // the other tests of this vhost declare these queues classic
            broker.deleteQueue(QUEUE);
            broker.deleteQueue(dlq);
        }
    }
}
