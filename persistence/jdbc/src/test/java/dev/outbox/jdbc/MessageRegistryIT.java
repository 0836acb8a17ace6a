package dev.outbox.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.ContractConflictException;
import dev.outbox.OutboxException;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.testkit.TestDatabase;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The registry's writer on the real tables: a contract is added once and never changed (the same
 * document again is a no-op, a different one is refused with nothing of that registration
 * written), a queue declaration is replaced when its consumer changes it, and processes that
 * register the same at once all succeed.
 */
class MessageRegistryIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final MessageRegistry registry = new MessageRegistry(DB.dataSource());

    @BeforeEach
    void empty() {
        DB.reset();
    }

    @Test
    void aContractIsAddedOnceAndTheSameDocumentAgainChangesNothing() throws Exception {
        List<MessageContract> first = contracts(
                "one",
                contract("stock.counted", 1, "\"count\": {\"type\": \"integer\"}"),
                contract("stock.moved", 1, "\"to\": {\"type\": \"string\"}"));

        assertEquals(new MessageRegistry.Outcome(2, 0, 0), registry.registerContracts(first, "stock-service"));
        List<Map<String, Object>> rows = DB.rows("SELECT message_type, message_version, exchange_name, routing_key,"
                + " aggregate_type, ordered, registered_by, registered_at, schema_document::text AS doc"
                + " FROM outbox_message_contracts ORDER BY message_type");
        assertEquals(2, rows.size());
        assertEquals("stock.counted", rows.get(0).get("message_type"));
        assertEquals("stock.events", rows.get(0).get("exchange_name"));
        assertEquals("stock.counted", rows.get(0).get("routing_key"));
        assertEquals("item", rows.get(0).get("aggregate_type"));
        assertEquals(true, rows.get(0).get("ordered"));
        assertEquals(
                JSON.readTree(JSON.writeValueAsString(first.get(0).document())),
                JSON.readTree((String) rows.get(0).get("doc")),
                "the whole contract file, x-outbox block included");

        // the same contracts again, written with other spacing and key order: the same documents
        List<MessageContract> again = contracts(
                "two",
                reformatted(contract("stock.counted", 1, "\"count\": {\"type\": \"integer\"}")),
                reformatted(contract("stock.moved", 1, "\"to\": {\"type\": \"string\"}")));
        assertEquals(new MessageRegistry.Outcome(0, 2, 0), registry.registerContracts(again, "another-instance"));
        assertEquals(
                rows,
                DB.rows("SELECT message_type, message_version, exchange_name, routing_key,"
                        + " aggregate_type, ordered, registered_by, registered_at, schema_document::text AS doc"
                        + " FROM outbox_message_contracts ORDER BY message_type"),
                "nothing rewritten, not even who or when");
    }

    @Test
    void aChangedSchemaUnderARegisteredVersionIsRefusedAndNothingOfThatRegistrationIsWritten() throws Exception {
        registry.registerContracts(
                contracts("one", contract("stock.counted", 1, "\"count\": {\"type\": \"integer\"}")), "stock-service");
        String before = (String) DB.scalar("SELECT schema_document::text FROM outbox_message_contracts");

        // a new type that comes first (the catalogue is in type order), then the changed one
        List<MessageContract> changed = contracts(
                "two",
                contract("stock.added", 1, "\"to\": {\"type\": \"string\"}"),
                contract("stock.counted", 1, "\"count\": {\"type\": \"number\"}"));
        assertEquals("stock.added", changed.get(0).messageType(), "the new type is registered first");
        ContractConflictException refused = assertThrows(
                ContractConflictException.class, () -> registry.registerContracts(changed, "stock-service-2"));

        assertEquals("stock.counted", refused.messageType());
        assertEquals(1, refused.messageVersion());
        assertTrue(refused.getMessage().contains("by stock-service"), refused.getMessage());
        assertTrue(refused.getMessage().contains("as v2 of stock.counted"), refused.getMessage());
        assertEquals(1, DB.count("SELECT count(*) FROM outbox_message_contracts"), "stock.added was not written");
        assertEquals(before, DB.scalar("SELECT schema_document::text FROM outbox_message_contracts"));
    }

    @Test
    void aNewVersionIsHowAContractChanges() throws Exception {
        registry.registerContracts(
                contracts("one", contract("stock.counted", 1, "\"count\": {\"type\": \"integer\"}")), "stock-service");

        assertEquals(
                new MessageRegistry.Outcome(1, 1, 0),
                registry.registerContracts(
                        contracts(
                                "two",
                                contract("stock.counted", 1, "\"count\": {\"type\": \"integer\"}"),
                                contract("stock.counted", 2, "\"count\": {\"type\": \"number\"}")),
                        "stock-service"));
        assertEquals(
                List.of(1, 2),
                DB.rows("SELECT message_version FROM outbox_message_contracts ORDER BY 1").stream()
                        .map(r -> r.get("message_version"))
                        .toList());
    }

    /** Ordering belongs to the type: a new version that orders otherwise is refused, nothing written. */
    @Test
    void aNewVersionThatOrdersOtherwiseThanItsTypeIsRefused() throws Exception {
        registry.registerContracts(
                contracts("one", contract("stock.counted", 1, "\"count\": {\"type\": \"integer\"}")), "stock-service");

        List<MessageContract> unordered = contracts(
                "two",
                contract("stock.counted", 2, "\"count\": {\"type\": \"number\"}")
                        .replace("\"ordered\": true", "\"ordered\": false"));
        assertEquals(false, unordered.get(0).ordered());
        ContractConflictException refused = assertThrows(
                ContractConflictException.class, () -> registry.registerContracts(unordered, "stock-service"));

        assertTrue(refused.getMessage().contains("ordering belongs to the type"), refused.getMessage());
        assertEquals(1, DB.count("SELECT count(*) FROM outbox_message_contracts"), "v2 was not written");
    }

    @Test
    void aQueueDeclarationIsKeptAsWrittenAndReplacedWhenItsConsumerChangesIt() throws Exception {
        ObjectNode declared = (ObjectNode) JSON.readTree("""
                {"queue": "stock.counts", "consumer": "stock",
                 "bindings": [{"exchange": "stock.events", "routingKeys": "contracts"}]}""");

        assertEquals(new MessageRegistry.Outcome(1, 0, 0), registry.registerQueue(declared, "stock"));
        ObjectNode sameOtherOrder = (ObjectNode) JSON.readTree("""
                {"bindings": [{"routingKeys": "contracts", "exchange": "stock.events"}],
                 "consumer": "stock", "queue": "stock.counts"}""");
        assertEquals(new MessageRegistry.Outcome(0, 1, 0), registry.registerQueue(sameOtherOrder, "stock"));
        Map<String, Object> row = DB.rows(
                        "SELECT revision, declaration::text AS d, consumer_name" + " FROM outbox_queue_declarations")
                .get(0);
        assertEquals(1, row.get("revision"));
        assertEquals("stock", row.get("consumer_name"));
        assertEquals(declared, JSON.readTree((String) row.get("d")), "\"contracts\" is kept, not expanded");

        ObjectNode rebound = declared.deepCopy();
        rebound.withArray("bindings")
                .addObject()
                .put("exchange", "audit.events")
                .putArray("routingKeys")
                .add("a.b");
        assertEquals(new MessageRegistry.Outcome(0, 0, 1), registry.registerQueue(rebound, "stock-2"));
        row = DB.rows("SELECT revision, declaration::text AS d, registered_by FROM outbox_queue_declarations")
                .get(0);
        assertEquals(2, row.get("revision"));
        assertEquals(rebound, JSON.readTree((String) row.get("d")));
        assertEquals("stock-2", row.get("registered_by"));
    }

    @Test
    void aQueueDeclarationWithoutItsNamesIsRefusedAndNothingIsWritten() throws Exception {
        ObjectNode nameless = (ObjectNode) JSON.readTree("{\"consumer\": \"stock\", \"bindings\": []}");

        OutboxException refused = assertThrows(OutboxException.class, () -> registry.registerQueue(nameless, "stock"));

        assertTrue(refused.getMessage().contains("\"queue\""), refused.getMessage());
        assertEquals(0, DB.count("SELECT count(*) FROM outbox_queue_declarations"));
    }

    /** What one service registers at once is one transaction: a refused contract takes its queues with it. */
    @Test
    void contractsAndQueuesRegisteredTogetherAreWrittenWholeOrNotAtAll() throws Exception {
        ObjectNode counts = (ObjectNode) JSON.readTree("""
                {"queue": "stock.counts", "consumer": "stock",
                 "bindings": [{"exchange": "stock.events", "routingKeys": "contracts"}]}""");
        List<MessageContract> first =
                contracts("one", contract("stock.counted", 1, "\"count\": {\"type\": \"integer\"}"));
        assertEquals(
                new MessageRegistry.Outcomes(
                        new MessageRegistry.Outcome(1, 0, 0), new MessageRegistry.Outcome(1, 0, 0)),
                registry.register(first, List.of(counts), "stock"));

        ObjectNode rebound = counts.deepCopy();
        rebound.withArray("bindings")
                .addObject()
                .put("exchange", "audit.events")
                .putArray("routingKeys")
                .add("#");
        ObjectNode audit = (ObjectNode) JSON.readTree("""
                {"queue": "stock.audit", "consumer": "audit",
                 "bindings": [{"exchange": "stock.events", "routingKeys": ["#"]}]}""");
        List<MessageContract> changed =
                contracts("two", contract("stock.counted", 1, "\"count\": {\"type\": \"number\"}"));
        assertThrows(
                ContractConflictException.class, () -> registry.register(changed, List.of(rebound, audit), "stock-2"));

        assertEquals(
                List.of(Map.of("queue_name", "stock.counts", "revision", 1, "registered_by", "stock")),
                DB.rows("SELECT queue_name, revision, registered_by FROM outbox_queue_declarations"),
                "neither the changed queue nor the new one was written");
        assertEquals(
                new MessageRegistry.Outcomes(
                        new MessageRegistry.Outcome(0, 1, 0), new MessageRegistry.Outcome(1, 0, 1)),
                registry.register(first, List.of(rebound, audit), "stock-2"),
                "with the registered contract, both are");
    }

    /** Every instance of a service starts at once (a rollout of eight) and registers the same. */
    @Test
    void processesRegisteringTheSameAtOnceAllSucceed() throws Exception {
        List<MessageContract> same = contracts(
                "one",
                contract("stock.counted", 1, "\"count\": {\"type\": \"integer\"}"),
                contract("stock.moved", 1, "\"to\": {\"type\": \"string\"}"));
        ObjectNode queue = (ObjectNode) JSON.readTree("""
                {"queue": "stock.counts", "consumer": "stock",
                 "bindings": [{"exchange": "stock.events", "routingKeys": "contracts"}]}""");
        int instances = 8;
        ExecutorService pool = Executors.newFixedThreadPool(instances);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Integer>> added = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                String name = "stock-" + i;
                added.add(pool.submit(() -> {
                    go.await();
                    return registry.registerContracts(same, name).added()
                            + registry.registerQueue(queue, name).added();
                }));
            }
            go.countDown();
            int total = 0;
            for (Future<Integer> f : added) {
                total += f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(3, total, "each row added by exactly one instance");
        } finally {
            pool.shutdownNow();
        }
        assertEquals(2, DB.count("SELECT count(*) FROM outbox_message_contracts"));
        assertEquals(1, DB.count("SELECT count(*) FROM outbox_queue_declarations WHERE revision = 1"));
    }

    /** A reader (the relay) listening on outbox_registry hears of a registration at its commit. */
    @Test
    void aRegistrationNotifiesItsReaders() throws Exception {
        try (Connection listener = DB.dataSource().getConnection();
                Statement s = listener.createStatement()) {
            s.execute("LISTEN outbox_registry");
            registry.registerContracts(
                    contracts("one", contract("stock.counted", 1, "\"count\": {\"type\": \"integer\"}")),
                    "stock-service");

            PGNotification[] heard = listener.unwrap(PGConnection.class).getNotifications(10_000);
            assertNotNull(heard, "no notification within 10 s");
            assertEquals("outbox_registry", heard[0].getName());
            s.execute("UNLISTEN outbox_registry");
        }
    }

    private static String contract(String type, int version, String property) {
        return """
                {
                  "$schema": "http://json-schema.org/draft-07/schema#",
                  "$id": "urn:outbox:contract:%s:v%d",
                  "x-outbox": {"exchange": "stock.events", "aggregateType": "item",
                               "aggregateIdProperty": "itemId", "ordered": true},
                  "type": "object",
                  "required": ["itemId"],
                  "properties": {"itemId": {"type": "string"}, %s}
                }
                """.formatted(type, version, property);
    }

    /** The same JSON, keys in reverse order and on one line. */
    private static String reformatted(String json) throws IOException {
        ObjectNode original = (ObjectNode) JSON.readTree(json);
        ObjectNode reversed = JSON.createObjectNode();
        List<String> names = new ArrayList<>();
        original.fieldNames().forEachRemaining(names::add);
        for (int i = names.size() - 1; i >= 0; i--) {
            reversed.set(names.get(i), original.get(names.get(i)));
        }
        String text = JSON.writeValueAsString(reversed);
        assertFalse(text.equals(json.strip()));
        return text;
    }

    /** The contracts of a classpath holding exactly these files (in {@code folder} of the temp dir). */
    private List<MessageContract> contracts(String folder, String... files) throws IOException {
        Path root = dir.resolve(folder);
        for (String file : files) {
            ObjectNode doc = (ObjectNode) JSON.readTree(file);
            String[] id = doc.get("$id").asText().split(":");
            Path p = root.resolve("contracts/" + id[3] + "/" + id[4] + ".schema.json");
            Files.createDirectories(p.getParent());
            Files.writeString(p, file);
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {root.toUri().toURL()}, null)) {
            return MessageContracts.load(loader).all();
        }
    }
}
