package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
        assertFalse(
                MessageContracts.onClasspath().all().isEmpty(), "the order service's contracts are on the classpath");
        for (MessageContract c : MessageContracts.onClasspath().all()) {
            assertTrue(bound.contains(c.routingKey()), c.routingKey() + " would be parked as UNROUTABLE");
            assertTrue(
                    BrokerTopology.onClasspath().exchanges().contains(c.exchange()), c + ": its exchange is declared");
        }
    }

    @Test
    void theSettingChoosesTheQueueTypeUnlessTheQueueFileNamesOne() {
        QueueDeclaration plain = new QueueDeclaration("q", "c", List.of(), Map.of(), "q.dlq");
        assertEquals("quorum", Topology.queueArguments(plain, QueueType.QUORUM).get("x-queue-type"));
        assertEquals(Map.of(), Topology.queueArguments(plain, QueueType.CLASSIC), "as earlier versions declared it");

        QueueDeclaration pinned = new QueueDeclaration("q", "c", List.of(), Map.of("x-queue-type", "classic"), "q.dlq");
        assertEquals(Map.of("x-queue-type", "classic"), Topology.queueArguments(pinned, QueueType.QUORUM));
    }

    /** Issue 21: RabbitMQ 4 gives a quorum queue without a limit 20 deliveries, then drops the message. */
    @Test
    void aQuorumQueueAlwaysHasAnExplicitDeliveryLimitAndItsDeadLetterQueueAsTarget() {
        QueueDeclaration plain = new QueueDeclaration("q", "c", List.of(), Map.of(), "q.dlq");
        Map<String, Object> quorum = Topology.queueArguments(plain, QueueType.QUORUM);
        assertEquals(
                Map.of(
                        "x-queue-type", "quorum",
                        "x-delivery-limit", (long) QueueDeclaration.DEFAULT_DELIVERY_LIMIT,
                        "x-dead-letter-exchange", "",
                        "x-dead-letter-routing-key", "q.dlq",
                        "x-dead-letter-strategy", "at-least-once",
                        "x-overflow", "reject-publish"),
                quorum);
        assertEquals(
                Map.of("x-queue-type", "quorum", "x-delivery-limit", (long)
                        QueueDeclaration.DEFAULT_DEAD_LETTER_DELIVERY_LIMIT),
                Topology.deadLetterArguments(plain, quorum),
                "the dead-letter queue has no target, so a limit no inspection reaches");

        QueueDeclaration configured = new QueueDeclaration("q", "c", List.of(), Map.of(), "q.dlq", 12, 345);
        assertEquals(12L, Topology.queueArguments(configured, QueueType.QUORUM).get("x-delivery-limit"));
        assertEquals(
                345L,
                Topology.deadLetterArguments(configured, Topology.queueArguments(configured, QueueType.QUORUM))
                        .get("x-delivery-limit"));
        assertEquals(Map.of(), Topology.deadLetterArguments(configured, Map.of()), "classic: nothing");
    }

    @Test
    void aDeliveryLimitInTheFilesArgumentsWinsAndAnOwnTargetIsKept() {
        QueueDeclaration limited = new QueueDeclaration("q", "c", List.of(), Map.of("x-delivery-limit", 50), "q.dlq");
        assertEquals(50, Topology.queueArguments(limited, QueueType.QUORUM).get("x-delivery-limit"));
        assertEquals("q.dlq", Topology.queueArguments(limited, QueueType.QUORUM).get("x-dead-letter-routing-key"));

        QueueDeclaration own = new QueueDeclaration(
                "q", "c", List.of(), Map.of("x-delivery-limit", 50, "x-dead-letter-exchange", "elsewhere"), "q.dlq");
        assertEquals("elsewhere", Topology.queueArguments(own, QueueType.QUORUM).get("x-dead-letter-exchange"));
        assertFalse(Topology.queueArguments(own, QueueType.QUORUM).containsKey("x-dead-letter-routing-key"));
    }

    @Test
    void aLimitThatWouldDropMessagesIsRefused() {
        for (int bad : new int[] {0, -1}) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> new QueueDeclaration("q", "c", List.of(), Map.of(), "q.dlq", bad, 10));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> new QueueDeclaration("q", "c", List.of(), Map.of(), "q.dlq", 10, bad));
        }
    }

    @Test
    void theDeliveryLimitOfADeclaredQueueIsWhatItsFileSaysWhenItIsAQuorumQueue() {
        String queue = "topology-it.order-events"; // its file sets "deliveryLimit": 3
        assertEquals(java.util.OptionalLong.of(3), Topology.deliveryLimitOf(queue, QueueType.QUORUM));
        assertEquals(java.util.OptionalLong.empty(), Topology.deliveryLimitOf(queue, QueueType.CLASSIC));
        assertEquals(java.util.OptionalLong.empty(), Topology.deliveryLimitOf("no-such-queue", QueueType.QUORUM));
    }
}
