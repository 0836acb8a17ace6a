package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.kernel.json.Json;
import dev.outbox.testkit.TestDatabase;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code POST /ops/registry} on a real server and database: what {@code outboxctl register} sends
 * for a service that runs none of the outbox's code. Each document is checked as a process checks
 * its own files; the contracts, the queues and the audit entry are written in one transaction; and
 * what cannot be registered is refused with nothing written, the queues sent beside it included.
 */
class RegistryApiIT {
    static final String OPERATOR = "op-secret-" + UUID.randomUUID();
    static final String READER = "read-secret-" + UUID.randomUUID();
    private static final TestDatabase DB = TestDatabase.get();
    private static final String CONTRACTS = "SELECT message_type, message_version, exchange_name, routing_key, ordered,"
            + " registered_by, registered_at, schema_document::text AS doc FROM outbox_message_contracts ORDER BY 1, 2";
    private static final String QUEUES = "SELECT queue_name, consumer_name, revision, registered_by,"
            + " declaration::text AS doc FROM outbox_queue_declarations ORDER BY 1";

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB, "OUTBOX_OPS_TOKEN", OPERATOR, "OUTBOX_OPS_READ_TOKEN", READER);

    private static DocumentedAnswers documented;

    @BeforeAll
    static void readTheDocument() throws Exception {
        documented = DocumentedAnswers.of(API.client());
    }

    private static String[] op() {
        return new String[] {"Authorization", "Bearer " + OPERATOR, "X-Operator", "alice"};
    }

    private static String[] reader() {
        return new String[] {"Authorization", "Bearer " + READER};
    }

    /** A contract file of a stock service, as outboxctl sends it: its {@code count} of this JSON type. */
    private static ObjectNode contract(String type, int version, String countType) throws IOException {
        ObjectNode file = Json.mapper().createObjectNode();
        file.put("messageType", type).put("version", version);
        file.set("document", Json.mapper().readTree("""
                {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "urn:outbox:contract:%s:v%d",
                 "x-outbox": {"exchange": "stock.events", "aggregateType": "item", "aggregateIdProperty": "itemId",
                              "ordered": true},
                 "type": "object", "required": ["itemId"],
                 "properties": {"itemId": {"type": "string"}, "count": {"type": "%s"}}}""".formatted(type, version, countType)));
        return file;
    }

    /** A queue file bound to every contract of the stock service's exchange. */
    private static ObjectNode queue(String name, String consumer) throws IOException {
        return (ObjectNode) Json.mapper().readTree("""
                {"queue": "%s", "consumer": "%s",
                 "bindings": [{"exchange": "stock.events", "routingKeys": "contracts"}]}""".formatted(name, consumer));
    }

    private static String body(List<ObjectNode> contracts, List<ObjectNode> queues) {
        ObjectNode body = Json.mapper().createObjectNode();
        body.putArray("contracts").addAll(contracts);
        body.putArray("queues").addAll(queues);
        return body.toString();
    }

    private static ApiClient.Reply register(String body, String... headers) throws Exception {
        return API.client().post("/ops/registry", body, headers);
    }

    private static JsonNode tree(Object text) throws IOException {
        return Json.mapper().readTree((String) text);
    }

    @Test
    void aContractAndAQueueAreRegisteredAsSentAndAudited() throws Exception {
        ObjectNode counted = contract("stock.counted", 1, "integer");
        ObjectNode counts = queue("stock.counts", "stock-report");

        ApiClient.Reply r = register(body(List.of(counted), List.of(counts)), op());

        documented.assertConforms("post", "/ops/registry", r, 200);
        JsonNode result = r.json();
        assertEquals(1, result.get("contractsAdded").asInt());
        assertEquals(0, result.get("contractsUnchanged").asInt());
        assertEquals(1, result.get("queuesAdded").asInt());
        assertEquals(0, result.get("queuesUnchanged").asInt());
        assertEquals(0, result.get("queuesReplaced").asInt());
        assertEquals("REGISTER", result.get("audit").get("action").asText());
        assertEquals("alice", result.get("audit").get("actor").asText());
        assertEquals(2, result.get("audit").get("affected").asInt());

        Map<String, Object> row = DB.rows(CONTRACTS).get(0);
        assertEquals("stock.counted", row.get("message_type"));
        assertEquals(1, row.get("message_version"));
        assertEquals("stock.events", row.get("exchange_name"));
        assertEquals("stock.counted", row.get("routing_key"), "the message type, when the contract names none");
        assertEquals(true, row.get("ordered"));
        assertEquals("alice (operator API)", row.get("registered_by"));
        assertEquals(counted.get("document"), tree(row.get("doc")), "the whole file, x-outbox block included");
        Map<String, Object> declared = DB.rows(QUEUES).get(0);
        assertEquals("stock.counts", declared.get("queue_name"));
        assertEquals("stock-report", declared.get("consumer_name"));
        assertEquals(1, declared.get("revision"));
        assertEquals(counts, tree(declared.get("doc")), "as sent: \"contracts\" is not expanded");
        assertEquals(
                List.of(Map.of("action", "REGISTER", "actor", "alice", "affected", 2)),
                DB.rows("SELECT action, actor, affected FROM ops_audit"));
        assertEquals(
                tree("{\"contracts\": [\"stock.counted v1\"], \"queues\": [\"stock.counts\"]}"),
                tree(DB.scalar("SELECT filter::text FROM ops_audit")),
                "the audit entry says what was registered");
    }

    @Test
    void theSameAgainChangesNothingAndAChangedQueueReplacesTheLast() throws Exception {
        ObjectNode counted = contract("stock.counted", 1, "integer");
        ObjectNode counts = queue("stock.counts", "stock-report");
        assertEquals(
                200, register(body(List.of(counted), List.of(counts)), op()).status());
        List<Map<String, Object>> before = DB.rows(CONTRACTS);

        JsonNode again = register(body(List.of(counted), List.of(counts)), op()).json();
        assertEquals(0, again.get("contractsAdded").asInt());
        assertEquals(1, again.get("contractsUnchanged").asInt());
        assertEquals(1, again.get("queuesUnchanged").asInt());
        assertEquals(0, again.get("audit").get("affected").asInt());
        assertEquals(before, DB.rows(CONTRACTS), "nothing rewritten, not even who or when");

        ObjectNode rebound = counts.deepCopy();
        rebound.withArray("bindings")
                .addObject()
                .put("exchange", "audit.events")
                .putArray("routingKeys")
                .add("#");
        JsonNode replaced = register(body(List.of(), List.of(rebound)), op()).json();
        assertEquals(1, replaced.get("queuesReplaced").asInt());
        assertEquals(1, replaced.get("audit").get("affected").asInt());
        assertEquals(2, DB.rows(QUEUES).get(0).get("revision"));
        assertEquals(rebound, tree(DB.rows(QUEUES).get(0).get("doc")));
    }

    /** A registered contract never changes, and the queue sent beside the changed one is not written either. */
    @Test
    void aChangedSchemaForARegisteredVersionIsRefusedAndNothingOfItsRegistrationIsWritten() throws Exception {
        assertEquals(
                200,
                register(body(List.of(contract("stock.counted", 1, "integer")), List.of()), op())
                        .status());
        List<Map<String, Object>> before = DB.rows(CONTRACTS);

        ApiClient.Reply refused = register(
                body(
                        List.of(contract("stock.added", 1, "integer"), contract("stock.counted", 1, "number")),
                        List.of(queue("stock.audit", "audit"))),
                op());

        documented.assertConforms("post", "/ops/registry", refused, 409);
        assertEquals("contract_conflict", refused.json().get("code").asText());
        String detail = refused.json().get("detail").asText();
        assertTrue(
                detail.startsWith("stock.counted v1 is registered already, by alice (operator API), with a different"
                        + " schema"),
                detail);
        assertTrue(detail.contains("register the change as v2 of stock.counted"), detail);
        assertEquals(before, DB.rows(CONTRACTS), "stock.added was not written, stock.counted not changed");
        assertEquals(0, DB.count("SELECT count(*) FROM outbox_queue_declarations"), "nor the queue sent with them");
        assertEquals(1, DB.count("SELECT count(*) FROM ops_audit"), "only the first registration's entry");
    }

    /** A document a process would refuse from its own jar is refused here, named by its entry. */
    @Test
    void aDocumentAProcessWouldRefuseIsA400NamingItsEntryAndNothingIsWritten() throws Exception {
        ObjectNode copied = contract("stock.counted", 2, "integer");
        ((ObjectNode) copied.get("document")).put("$id", "urn:outbox:contract:stock.counted:v1");
        ApiClient.Reply refusedContract = register(
                body(List.of(contract("stock.moved", 1, "string"), copied), List.of(queue("stock.counts", "s"))), op());
        documented.assertConforms("post", "/ops/registry", refusedContract, 400);
        assertEquals("contract_invalid", refusedContract.json().get("code").asText());
        assertEquals(
                "contracts[1] of the registration by alice: $id must be \"urn:outbox:contract:stock.counted:v2\""
                        + " (found \"urn:outbox:contract:stock.counted:v1\"); a copied file keeps its old one",
                refusedContract.json().get("detail").asText(),
                "the words a process starting with this file would say");

        ObjectNode unbound = queue("stock.counts", "stock-report");
        unbound.putArray("bindings");
        ApiClient.Reply refusedQueue =
                register(body(List.of(contract("stock.moved", 1, "string")), List.of(unbound)), op());
        documented.assertConforms("post", "/ops/registry", refusedQueue, 400);
        assertEquals("queue_invalid", refusedQueue.json().get("code").asText());
        assertEquals(
                "queues[0] of the registration by alice: bindings must list at least one exchange",
                refusedQueue.json().get("detail").asText());

        ObjectNode unstorable = contract("stock.moved", 1, "string");
        ((ObjectNode) unstorable.get("document")).put("description", "a\u0000b");
        ApiClient.Reply nul = register(body(List.of(unstorable), List.of()), op());
        documented.assertConforms("post", "/ops/registry", nul, 400);
        assertEquals("validation_failed", nul.json().get("code").asText());
        assertEquals(
                "contracts[0].document.description",
                nul.json().get("errors").get(0).get("field").asText());

        for (String request : List.of(
                "{\"contracts\": []}",
                "{\"contracts\": [], \"queues\": []}",
                body(List.of(contract("stock.moved", 1, "string"), contract("stock.moved", 1, "string")), List.of()),
                body(List.of(), List.of(queue("stock.counts", "a"), queue("stock.counts", "b"))))) {
            ApiClient.Reply r = register(request, op());
            documented.assertConforms("post", "/ops/registry", r, 400);
            assertEquals("validation_failed", r.json().get("code").asText(), request);
        }

        assertEquals(0, DB.count("SELECT count(*) FROM outbox_message_contracts"));
        assertEquals(0, DB.count("SELECT count(*) FROM outbox_queue_declarations"));
        assertEquals(0, DB.count("SELECT count(*) FROM ops_audit"));
    }

    @Test
    void theReadOnlyTokenMayNotRegister() throws Exception {
        ApiClient.Reply r = register(
                body(List.of(contract("stock.counted", 1, "integer")), List.of(queue("stock.counts", "s"))), reader());

        documented.assertConforms("post", "/ops/registry", r, 403);
        assertEquals("forbidden", r.json().get("code").asText());
        assertEquals(0, DB.count("SELECT count(*) FROM outbox_message_contracts"));
        assertEquals(0, DB.count("SELECT count(*) FROM outbox_queue_declarations"));
        assertEquals(0, DB.count("SELECT count(*) FROM ops_audit"));
    }
}
