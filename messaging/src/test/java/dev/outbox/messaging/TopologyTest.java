package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.topology.QueueDeclaration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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

    @Test
    void theSettingChoosesTheQueueTypeUnlessTheQueueFileNamesOne() {
        QueueDeclaration plain = new QueueDeclaration("q", "c", List.of(), Map.of(), "q.dlq");
        assertEquals(Map.of("x-queue-type", "quorum"), Topology.queueArguments(plain, QueueType.QUORUM));
        assertEquals(Map.of(), Topology.queueArguments(plain, QueueType.CLASSIC), "as earlier versions declared it");

        QueueDeclaration pinned = new QueueDeclaration("q", "c", List.of(), Map.of("x-queue-type", "classic"), "q.dlq");
        assertEquals(
                "classic", Topology.queueArguments(pinned, QueueType.QUORUM).get("x-queue-type"));
    }

    @Test
    void aDeliveryLimitDeadLettersIntoTheConsumersOwnDeadLetterQueue() {
        QueueDeclaration limited = new QueueDeclaration("q", "c", List.of(), Map.of("x-delivery-limit", 50), "q.dlq");
        assertEquals(
                Map.of(
                        "x-queue-type", "quorum",
                        "x-delivery-limit", 50,
                        "x-dead-letter-exchange", "",
                        "x-dead-letter-routing-key", "q.dlq"),
                Topology.queueArguments(limited, QueueType.QUORUM));

        QueueDeclaration own = new QueueDeclaration(
                "q", "c", List.of(), Map.of("x-delivery-limit", 50, "x-dead-letter-exchange", "elsewhere"), "q.dlq");
        assertEquals("elsewhere", Topology.queueArguments(own, QueueType.QUORUM).get("x-dead-letter-exchange"));
        assertFalse(Topology.queueArguments(own, QueueType.QUORUM).containsKey("x-dead-letter-routing-key"));
    }
}
