package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.testkit.TestBroker;
import org.junit.jupiter.api.Test;

class TopologyIT {
    private static final String QUEUE = "topology-it.order-events";

    @Test
    void declaringTwiceIsHarmlessAndCreatesTheDeclaredQueuesAndBindings() {
        TestBroker broker = TestBroker.get();
        broker.withChannel(Topology::declare);
        broker.withChannel(Topology::declare);
        broker.purgeIfExists(QUEUE);
        broker.withChannel(ch -> ch.basicPublish(Topology.ORDERS_EXCHANGE, "order.shipped", true, null, new byte[0]));
        org.awaitility.Awaitility.await().until(() -> broker.messageCount(QUEUE) == 1);
        assertEquals(0, broker.messageCount(Topology.deadLetterQueueOf(QUEUE)));
        assertEquals("topology-it.order-events.dlq", Topology.deadLetterQueueOf(QUEUE));
        broker.purgeIfExists(QUEUE);
    }
}
