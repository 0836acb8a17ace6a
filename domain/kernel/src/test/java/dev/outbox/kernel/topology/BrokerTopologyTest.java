package dev.outbox.kernel.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.contract.ContractDefinitionException;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Queues as data: a consumer module ships a file, and the topology follows the contracts. */
class BrokerTopologyTest {
    @TempDir
    Path dir;

    private final MessageContracts contracts = MessageContracts.onClasspath();

    private BrokerTopology load(Map<String, String> files) throws IOException {
        for (Map.Entry<String, String> f : files.entrySet()) {
            Path p = dir.resolve(f.getKey());
            Files.createDirectories(p.getParent());
            Files.writeString(p, f.getValue());
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            return BrokerTopology.load(loader, contracts);
        }
    }

    @Test
    void aQueueBoundToContractsGetsEveryRoutingKeyOfItsExchangeAndADefaultDeadLetterQueue() throws IOException {
        BrokerTopology t = load(Map.of("topology/shipping.order-events.queue.json", """
                {"queue": "shipping.order-events", "consumer": "shipping",
                 "bindings": [{"exchange": "orders.events", "routingKeys": "contracts"}],
                 "arguments": {"x-queue-type": "classic", "x-max-length": 100000}}"""));
        QueueDeclaration q = t.queue("shipping.order-events");
        assertEquals("shipping", q.consumer());
        assertEquals(
                contracts.all().stream()
                        .filter(c -> c.exchange().equals("orders.events"))
                        .map(MessageContract::routingKey)
                        .collect(java.util.stream.Collectors.toSet()),
                Set.copyOf(q.routingKeysOn("orders.events")),
                "every contract's routing key on the exchange, whatever types there are");
        assertEquals("shipping.order-events.dlq", q.deadLetterQueue());
        assertEquals(Map.of("x-queue-type", "classic", "x-max-length", 100000L), q.arguments());
        assertTrue(t.exchanges().contains("orders.events"), "every exchange a contract names is declared");
    }

    @Test
    void anExplicitListBindsOnlyThoseKeysAndItsExchangeIsDeclared() throws IOException {
        BrokerTopology t = load(Map.of("topology/audit.queue.json", """
                {"queue": "audit", "consumer": "audit", "deadLetterQueue": "audit.parked",
                 "bindings": [{"exchange": "audit.events", "routingKeys": ["#"]},
                              {"exchange": "orders.events", "routingKeys": ["order.cancelled"]}]}"""));
        QueueDeclaration q = t.queue("audit");
        assertEquals(List.of("#"), q.routingKeysOn("audit.events"));
        assertEquals(List.of("order.cancelled"), q.routingKeysOn("orders.events"));
        assertEquals("audit.parked", q.deadLetterQueue());
        assertTrue(t.exchanges().containsAll(Set.of("audit.events", "orders.events")));
    }

    @Test
    void aFileNamedForAnotherQueueIsRefused() {
        String message = assertThrows(
                        ContractDefinitionException.class,
                        () -> load(Map.of(
                                "topology/ledger.queue.json",
                                "{\"queue\": \"shipping\", \"consumer\": \"s\", \"bindings\": [{\"exchange\": \"x\","
                                        + " \"routingKeys\": [\"a\"]}]}")))
                .getMessage();
        assertTrue(message.contains("the file must be named shipping.queue.json"), message);
    }

    @Test
    void aQueueWithoutBindingsIsRefused() {
        String message = assertThrows(
                        ContractDefinitionException.class,
                        () -> load(Map.of(
                                "topology/shipping.queue.json",
                                "{\"queue\": \"shipping\", \"consumer\": \"s\", \"bindings\": []}")))
                .getMessage();
        assertTrue(message.contains("bindings must list at least one exchange"), message);
    }

    @Test
    void deliveryLimitsDefaultUnlessTheFileSetsThemAndALimitThatDropsMessagesIsRefused() throws IOException {
        BrokerTopology t = load(Map.of("topology/billing.queue.json", """
                {"queue": "billing", "consumer": "billing", "deliveryLimit": 7, "deadLetterDeliveryLimit": 99,
                 "bindings": [{"exchange": "orders.events", "routingKeys": ["payment.captured"]}]}"""));
        assertEquals(7, t.queue("billing").deliveryLimit());
        assertEquals(99, t.queue("billing").deadLetterDeliveryLimit());
        QueueDeclaration defaults =
                load(Map.of("topology/plain.queue.json", """
                        {"queue": "plain", "consumer": "p",
                         "bindings": [{"exchange": "orders.events", "routingKeys": ["order.created"]}]}""")).queue("plain");
        assertEquals(QueueDeclaration.DEFAULT_DELIVERY_LIMIT, defaults.deliveryLimit());
        assertEquals(QueueDeclaration.DEFAULT_DEAD_LETTER_DELIVERY_LIMIT, defaults.deadLetterDeliveryLimit());
        for (String bad : List.of("0", "-1", "2.5", "\"20\"", "3000000000")) {
            String message = assertThrows(
                            ContractDefinitionException.class,
                            () -> load(Map.of(
                                    "topology/bad.queue.json",
                                    "{\"queue\": \"bad\", \"consumer\": \"b\","
                                            + " \"deliveryLimit\": " + bad + ", \"bindings\": [{\"exchange\": \"x\","
                                            + " \"routingKeys\": [\"a\"]}]}")))
                    .getMessage();
            assertTrue(message.contains("deliveryLimit must be a whole number"), bad + ": " + message);
        }
    }
}
