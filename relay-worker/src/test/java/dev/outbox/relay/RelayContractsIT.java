package dev.outbox.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.gen.Generators;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * What the relay checks rows against when its own classpath has no contract at all, as the
 * shipped relay's has none of a service's: the contracts producers registered in the database,
 * read by {@link RegistryWatch}, whatever else any SQL client wrote into the registry beside them.
 */
class RelayContractsIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final String PROBE = "registry.probe";
    private static final String ANCHOR = "registry.anchor";

    private final MessageRegistry registry = new MessageRegistry(DB.dataSource());

    @BeforeEach
    void emptyRegistry() {
        DB.execute("TRUNCATE outbox_message_contracts");
    }

    /** A relay whose classpath holds no contract, and its watch over the test database's registry. */
    private static RelayContracts noContractsOnTheClasspath(String... configuredUnordered) {
        ClassLoader empty = new URLClassLoader(new URL[0], null);
        return new RelayContracts(MessageContracts.load(empty), Set.of(configuredUnordered), false);
    }

    private RegistryWatch watch(RelayContracts contracts) {
        return new RegistryWatch(registry, contracts, Duration.ofHours(1), types -> Set.of());
    }

    static ObjectNode contract(String type, int version, boolean ordered) {
        return (ObjectNode) parse("{"
                + "\"$schema\": \"http://json-schema.org/draft-07/schema#\","
                + "\"$id\": \"urn:outbox:contract:" + type + ":v" + version + "\","
                + "\"x-outbox\": {\"exchange\": \"orders.events\", \"aggregateType\": \"order\","
                + " \"aggregateIdProperty\": \"probeId\", \"ordered\": " + ordered + "},"
                + "\"type\": \"object\", \"required\": [\"probeId\", \"count\"],"
                + "\"properties\": {\"probeId\": {\"type\": \"string\", \"minLength\": 1},"
                + " \"count\": {\"type\": \"integer\", \"minimum\": 0}},"
                + "\"examples\": [{\"probeId\": \"p-1\", \"count\": 3}]}");
    }

    static JsonNode parse(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static MessageContract parsed(ObjectNode doc, String type, int version) {
        return MessageContracts.parse(type, version, doc, "test");
    }

    /** A row as a SQL client would write it for {@code type} v1 on the orders exchange. */
    static OutboxRecord row(String type, String payload) {
        return new OutboxRecord(
                UUID.randomUUID(),
                "order",
                "p-1",
                null,
                type,
                1,
                "orders.events",
                type,
                payload,
                null,
                "PENDING",
                0,
                Instant.now(),
                null,
                null,
                Instant.now(),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null);
    }

    private void insertBySql(String type, int version, String document) {
        DB.update(
                "INSERT INTO outbox_message_contracts (message_type, message_version, exchange_name, routing_key,"
                        + " aggregate_type, ordered, schema_document, registered_by)"
                        + " VALUES (?, ?, 'orders.events', ?, 'order', false, ?::jsonb, 'psql')",
                type,
                version,
                type,
                document);
    }

    @Test
    void aContractRegisteredInTheDatabaseIsCheckedAsOneOnTheClasspathWouldBe() {
        RelayContracts contracts = noContractsOnTheClasspath();
        RegistryWatch watch = watch(contracts);
        watch.refresh();
        String broken = "{\"not\": \"an order\"}";
        assertInstanceOf(
                AmqpMessageMapper.Ready.class,
                contracts.map(row(PROBE, broken)),
                "not registered yet: a type the relay does not know is checked for being JSON only");

        registry.registerContracts(List.of(parsed(contract(PROBE, 1, false), PROBE, 1)), "probe-service");
        watch.refresh();

        AmqpMessageMapper.Invalid invalid =
                assertInstanceOf(AmqpMessageMapper.Invalid.class, contracts.map(row(PROBE, broken)));
        assertEquals(ErrorCode.PAYLOAD_INVALID, invalid.code());
        assertTrue(invalid.reason().contains("breaks the registry.probe v1 contract"), invalid.reason());
        assertInstanceOf(
                AmqpMessageMapper.Ready.class, contracts.map(row(PROBE, "{\"probeId\": \"p-1\", \"count\": 2}")));
        AmqpMessageMapper.Invalid unknownVersion = assertInstanceOf(
                AmqpMessageMapper.Invalid.class,
                contracts.map(new OutboxRecord(
                        UUID.randomUUID(),
                        "order",
                        "p-1",
                        null,
                        PROBE,
                        7,
                        "orders.events",
                        PROBE,
                        "{}",
                        null,
                        "PENDING",
                        0,
                        Instant.now(),
                        null,
                        null,
                        Instant.now(),
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null)));
        assertTrue(unknownVersion.reason().contains("no contract at version 7"), unknownVersion.reason());
        assertEquals(Set.of(PROBE), contracts.unorderedTypes(), "its contract says \"ordered\": false");
        assertEquals(1, contracts.registered());
    }

    @Test
    void aRegisteredRowTheRelayCannotUseIsSkippedAndTheRestStillApply() {
        registry.registerContracts(List.of(parsed(contract(ANCHOR, 1, true), ANCHOR, 1)), "anchor-service");
        ObjectNode copied = contract(PROBE, 1, false);
        copied.put("$id", "urn:outbox:contract:some.other:v1");
        insertBySql(PROBE, 1, copied.toString());
        RelayContracts contracts = noContractsOnTheClasspath();

        watch(contracts).refresh();

        assertEquals(1, contracts.registered());
        assertEquals(1, contracts.unusable());
        assertTrue(contracts.current().knows(ANCHOR));
        assertFalse(contracts.current().knows(PROBE), "skipped: its $id names another contract");
        assertEquals(Set.of(), contracts.unorderedTypes(), ANCHOR + " is ordered");
    }

    @Test
    void theRegistryIsReadAgainOnlyWhenItChangedAndAChangeByHandCountsToo() {
        RelayContracts contracts = noContractsOnTheClasspath("configured.type");
        RegistryWatch watch = watch(contracts);
        registry.registerContracts(List.of(parsed(contract(PROBE, 1, false), PROBE, 1)), "probe-service");
        watch.refresh();
        watch.refresh();
        registry.registerContracts(List.of(parsed(contract(PROBE, 1, false), PROBE, 1)), "probe-service");
        watch.refresh();
        assertEquals(1, watch.reloads(), "the same registration again changes nothing");

        registry.registerContracts(List.of(parsed(contract(PROBE, 2, false), PROBE, 2)), "probe-service");
        watch.refresh();
        assertEquals(2, watch.reloads());
        assertTrue(contracts.current().find(PROBE, 2).isPresent());

        DB.update("DELETE FROM outbox_message_contracts WHERE message_version = 2");
        watch.refresh();
        assertEquals(3, watch.reloads());
        assertTrue(contracts.current().find(PROBE, 2).isEmpty(), "deleted by hand: forgotten");
        assertEquals(Set.of(PROBE, "configured.type"), contracts.unorderedTypes());
    }

    @Test
    void aRegisteredContractOverridesTheClasspathsAndOrderingNeedsEveryVersionToAgree() {
        // the relay's test classpath has the order service's contracts; order.created is ordered there
        RelayContracts contracts = new RelayContracts(MessageContracts.onClasspath(), Set.of(), false);
        MessageContract classpath = MessageContracts.onClasspath().require("order.created", 1);
        ObjectNode v2 = classpath.document().deepCopy();
        v2.put("$id", "urn:outbox:contract:order.created:v2");
        ((ObjectNode) v2.get("x-outbox")).put("ordered", false);
        insertBySql("order.created", 2, v2.toString());

        watch(contracts).refresh();

        assertTrue(contracts.current().find("order.created", 2).isPresent());
        assertFalse(
                contracts.unorderedTypes().contains("order.created"),
                "v1 says ordered: holding a row back is safe, publishing one out of order is not");
    }

    /**
     * Whatever document a SQL client writes for a type, reading the registry neither fails nor
     * loses the other contracts beside it, and checking a row of that type returns a verdict
     * instead of throwing: the verdict is the relay's decision about the row, an exception would
     * be a fault of its own, retried and counted for every row of the type.
     */
    @Test
    void whateverASqlClientRegistersTheRelayStillReadsTheRestAndJudgesEveryRow() {
        qt().withExamples(150).forAll(mutatedContracts(), payloads()).checkAssert((document, payload) -> {
            DB.execute("TRUNCATE outbox_message_contracts");
            registry.registerContracts(List.of(parsed(contract(ANCHOR, 1, true), ANCHOR, 1)), "anchor-service");
            insertBySql(PROBE, 1, document.toString());
            boolean usable;
            try {
                MessageContracts.parse(PROBE, 1, parse(document.toString()), "direct");
                usable = true;
            } catch (RuntimeException refused) {
                usable = false;
            }
            RelayContracts contracts = noContractsOnTheClasspath();

            watch(contracts).refresh();

            assertTrue(contracts.current().knows(ANCHOR), "the contract beside it is still known");
            assertEquals(usable, contracts.current().knows(PROBE), document::toString);
            assertEquals(usable ? 0 : 1, contracts.unusable());
            AmqpMessageMapper.Mapped mapped = contracts.map(row(PROBE, payload.toString()));
            if (mapped instanceof AmqpMessageMapper.Invalid invalid) {
                assertEquals(ErrorCode.PAYLOAD_INVALID, invalid.code());
            }
            assertInstanceOf(
                    AmqpMessageMapper.Invalid.class,
                    contracts.map(row(ANCHOR, payload.toString().equals("{}") ? "[]" : "{}")),
                    "the anchor's contract is still enforced");
        });
    }

    /** The probe's contract with one part of it replaced, removed or added, as a hand-written row might be. */
    private static Gen<ObjectNode> mutatedContracts() {
        List<String> paths = List.of(
                "", "/x-outbox", "/properties", "/properties/probeId", "/properties/count", "/examples/0", "/required");
        List<String> keys = List.of(
                "$id",
                "$ref",
                "$schema",
                "type",
                "pattern",
                "format",
                "minimum",
                "required",
                "enum",
                "items",
                "exchange",
                "aggregateIdProperty",
                "ordered",
                "properties",
                "x-outbox",
                "0");
        Gen<Integer> how = SourceDSL.integers().between(0, 2);
        return Generate.pick(paths)
                .zip(Generate.pick(keys), how, (path, key, op) -> new String[] {path, key, String.valueOf(op)})
                .zip(jsonValues(3), (where, value) -> {
                    ObjectNode doc = contract(PROBE, 1, false);
                    JsonNode at = doc.at(where[0]);
                    if (at instanceof ObjectNode o) {
                        switch (where[2]) {
                            case "0" -> o.set(where[1], value);
                            case "1" -> o.remove(where[1]);
                            default -> o.set(where[1], JsonNodeFactory.instance.textNode(value.toString()));
                        }
                    } else if (at instanceof ArrayNode a) {
                        if ("1".equals(where[2]) && !a.isEmpty()) {
                            a.remove(0);
                        } else {
                            a.add(value);
                        }
                    }
                    return doc;
                });
    }

    /** Payloads as any row may carry: mostly objects, some not. */
    private static Gen<JsonNode> payloads() {
        Gen<JsonNode> objects = jsonValues(2)
                .zip(jsonValues(2), SourceDSL.integers().between(0, 1), (a, b, which) -> {
                    ObjectNode o = JsonNodeFactory.instance.objectNode();
                    o.set("probeId", which == 0 ? a : JsonNodeFactory.instance.textNode("p-1"));
                    o.set("count", b);
                    return o;
                });
        return objects.mix(jsonValues(2), 20);
    }

    /** Any JSON value up to {@code depth} levels deep. */
    static Gen<JsonNode> jsonValues(int depth) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        // PostgreSQL's jsonb holds no NUL, so no SQL client can register one
        Gen<JsonNode> scalars = Generators.text(0, 12)
                .map(s -> (JsonNode) f.textNode(s.replace('\u0000', ' ')))
                .mix(Generators.anyLong().map(l -> (JsonNode) f.numberNode(l)), 30)
                .mix(SourceDSL.doubles().between(-1e9, 1e9).map(d -> (JsonNode) f.numberNode(d)), 10)
                .mix(SourceDSL.booleans().all().map(b -> (JsonNode) f.booleanNode(b)), 10)
                .mix(Generate.constant((JsonNode) f.nullNode()), 5)
                .mix(
                        Generate.pick(List.<JsonNode>of(
                                f.textNode("^["),
                                f.textNode("#/definitions/missing"),
                                f.textNode("http://127.0.0.1:9/x.json"),
                                f.textNode("date-time"),
                                f.textNode("object"),
                                f.numberNode(-1))),
                        15);
        if (depth <= 0) {
            return scalars;
        }
        Gen<JsonNode> inner = jsonValues(depth - 1);
        Gen<JsonNode> arrays = SourceDSL.lists().of(inner).ofSizeBetween(0, 3).map(items -> {
            ArrayNode a = f.arrayNode();
            items.forEach(a::add);
            return (JsonNode) a;
        });
        Gen<JsonNode> objects = SourceDSL.lists()
                .of(Generate.pick(List.of("type", "pattern", "$ref", "properties", "k", ""))
                        .zip(inner, List::of))
                .ofSizeBetween(0, 3)
                .map(entries -> {
                    ObjectNode o = f.objectNode();
                    for (List<Object> e : new ArrayList<>(entries)) {
                        o.set((String) e.get(0), (JsonNode) e.get(1));
                    }
                    return (JsonNode) o;
                });
        return scalars.mix(arrays, 15).mix(objects, 20);
    }
}
