package dev.outbox.kernel.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Where a queue sent as a document comes from, as its errors name it. */
    private static final String SENT = "the registration";

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

    /**
     * A queue sent to the operator API instead of shipped in a jar: the checks a file gets but its
     * name's, with the file's words, and {@code "contracts"} bound to the routing keys of the
     * contracts sent beside it.
     */
    @Test
    void aQueueReceivedAsADocumentIsCheckedAsItsFileWouldBe() throws IOException {
        MessageContract counted = MessageContracts.parse("stock.counted", 1, JSON.readTree("""
                {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "urn:outbox:contract:stock.counted:v1",
                 "x-outbox": {"exchange": "stock.events", "aggregateType": "item", "aggregateIdProperty": "itemId",
                              "ordered": true},
                 "type": "object", "required": ["itemId"], "properties": {"itemId": {"type": "string"}}}"""), SENT);
        ObjectNode sent = (ObjectNode) JSON.readTree("""
                {"queue": "stock.counts", "consumer": "stock",
                 "bindings": [{"exchange": "stock.events", "routingKeys": "contracts"}]}""");

        QueueDeclaration q = BrokerTopology.declaration(sent, SENT, contracts.with(List.of(counted)));
        assertEquals("stock", q.consumer());
        assertEquals(List.of("stock.counted"), q.routingKeysOn("stock.events"));
        assertEquals("stock.counts.dlq", q.deadLetterQueue());

        for (String broken : List.of(
                "{\"consumer\": \"b\", \"bindings\": [{\"exchange\": \"x\", \"routingKeys\": [\"a\"]}]}",
                "{\"queue\": \"bad\", \"consumer\": \"b\", \"bindings\": []}",
                "{\"queue\": \"bad\", \"consumer\": \"b\","
                        + " \"bindings\": [{\"exchange\": \"x\", \"routingKeys\": \"all\"}]}",
                "{\"queue\": \"bad\", \"consumer\": \"b\", \"deliveryLimit\": 0,"
                        + " \"bindings\": [{\"exchange\": \"x\", \"routingKeys\": [\"a\"]}]}")) {
            String fromFile = assertThrows(
                            ContractDefinitionException.class, () -> load(Map.of("topology/bad.queue.json", broken)))
                    .getMessage();
            String fromDocument = assertThrows(
                            ContractDefinitionException.class,
                            () -> BrokerTopology.declaration((ObjectNode) JSON.readTree(broken), SENT, contracts))
                    .getMessage();
            assertEquals(
                    fromFile.substring(fromFile.indexOf("bad.queue.json: ") + "bad.queue.json".length()),
                    fromDocument.substring(SENT.length()),
                    broken);
        }
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
