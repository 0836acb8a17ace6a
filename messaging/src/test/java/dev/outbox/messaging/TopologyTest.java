package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.domain.event.EventType;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Topology and catalogue agree: every event the service emits is routed somewhere. */
class TopologyTest {
    @Test
    void everyEventTypeOfTheCatalogueIsBoundToAQueue() {
        Set<String> bound = new HashSet<>();
        Topology.queues().forEach(q -> bound.addAll(q.routingKeys()));
        for (EventType t : EventType.values()) {
            assertTrue(bound.contains(t.routingKey()), t.routingKey() + " would be parked as UNROUTABLE");
            assertTrue(t.exchange().equals(Topology.ORDERS_EXCHANGE), t + " goes to the declared exchange");
        }
    }
}
