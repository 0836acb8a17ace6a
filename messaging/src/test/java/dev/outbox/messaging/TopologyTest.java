package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Topology and contracts agree: every message type the service declares is routed somewhere. */
class TopologyTest {
    @Test
    void everyContractIsBoundToAQueueOnTheExchangeItNames() {
        Set<String> bound = new HashSet<>();
        Topology.queues().forEach(q -> bound.addAll(q.routingKeys()));
        assertEquals(5, MessageContracts.onClasspath().all().size(), "the order service's five message types");
        for (MessageContract c : MessageContracts.onClasspath().all()) {
            assertTrue(bound.contains(c.routingKey()), c.routingKey() + " would be parked as UNROUTABLE");
            assertEquals(Topology.ORDERS_EXCHANGE, c.exchange(), c + " goes to the declared exchange");
        }
    }
}
