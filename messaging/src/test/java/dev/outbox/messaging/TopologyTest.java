package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.topology.QueueDeclaration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Topology and contracts agree: every message type the service declares is routed somewhere. */
class TopologyTest {
    @Test
    void aQueueBoundToContractsReceivesEveryTypeOnItsExchange() {
        Set<String> bound = new HashSet<>();
        for (QueueDeclaration q : Topology.queues()) {
            bound.addAll(q.routingKeysOn(Topology.ORDERS_EXCHANGE));
        }
        assertEquals(5, MessageContracts.onClasspath().all().size(), "the order service's five message types");
        for (MessageContract c : MessageContracts.onClasspath().all()) {
            assertTrue(bound.contains(c.routingKey()), c.routingKey() + " would be parked as UNROUTABLE");
            assertTrue(
                    BrokerTopology.onClasspath().exchanges().contains(c.exchange()), c + ": its exchange is declared");
        }
    }
}
