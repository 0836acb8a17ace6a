package dev.outbox.kernel.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the catalogue reads contracts another module ships (a folder or a jar on the classpath),
 * and how it refuses ones that cannot be used: at load, so a process with a broken contract never
 * starts.
 */
class ContractDefinitionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Where a contract sent as a document comes from, as its errors name it. */
    private static final String SENT = "the registration";

    @TempDir
    Path dir;

    private static String contract(String type, int version, String outbox, String extra) {
        return """
                {
                  "$schema": "http://json-schema.org/draft-07/schema#",
                  "$id": "urn:outbox:contract:%s:v%d",
                  "x-outbox": %s,
                  "type": "object",
                  "required": ["itemId"],
                  "properties": {"itemId": {"type": "string"}, "count": {"type": "integer"}}%s
                }
                """.formatted(type, version, outbox, extra);
    }

    private static final String ORDERED = """
            {"exchange": "stock.events", "aggregateType": "item", "aggregateIdProperty": "itemId", "ordered": true}""";
    private static final String UNORDERED = """
            {"exchange": "stock.events", "routingKey": "stock.audit", "aggregateType": "item",
             "aggregateIdProperty": "itemId", "ordered": false}""";

    private MessageContracts loadFolder(Map<String, String> files) throws IOException {
        for (Map.Entry<String, String> f : files.entrySet()) {
            Path p = dir.resolve(f.getKey());
            Files.createDirectories(p.getParent());
            Files.writeString(p, f.getValue());
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            return MessageContracts.load(loader);
        }
    }

    private MessageContracts loadJar(Map<String, String> files) throws IOException {
        Path jar = dir.resolve("contracts.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("contracts/"));
            for (Map.Entry<String, String> f : files.entrySet()) {
                out.putNextEntry(new JarEntry(f.getKey().substring(0, f.getKey().lastIndexOf('/') + 1)));
                out.putNextEntry(new JarEntry(f.getKey()));
                OutputStream body = out;
                body.write(f.getValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            return MessageContracts.load(loader);
        }
    }

    private ContractDefinitionException refused(Map<String, String> files) {
        return assertThrows(ContractDefinitionException.class, () -> loadFolder(files));
    }

    @Test
    void contractsAreReadFromAFolderAndTheirFactsFromXOutbox() throws IOException {
        MessageContracts c = loadFolder(Map.of(
                "contracts/stock.reserved/v1.schema.json", contract("stock.reserved", 1, ORDERED, ""),
                "contracts/stock.reserved/v2.schema.json", contract("stock.reserved", 2, ORDERED, ""),
                "contracts/stock.counted/v1.schema.json", contract("stock.counted", 1, UNORDERED, "")));
        assertEquals(Set.of("stock.counted", "stock.reserved"), c.messageTypes());
        assertEquals(3, c.all().size());
        assertEquals(
                List.of(2, 1),
                c.latest().stream()
                        .map(MessageContract::version)
                        .sorted((a, b) -> b - a)
                        .toList());
        assertEquals("stock.reserved", c.require("stock.reserved", 2).routingKey());
        assertEquals("stock.audit", c.require("stock.counted", 1).routingKey());
        assertEquals(Set.of("stock.counted"), c.unorderedTypes());
        assertEquals(
                List.of("count: string found, integer expected"),
                c.violations("stock.reserved", 2, "i-1", "{\"itemId\": \"i-1\", \"count\": \"3\"}"));
    }

    @Test
    void contractsAreReadFromAJarLikeFromAFolder() throws IOException {
        MessageContracts c =
                loadJar(Map.of("contracts/stock.reserved/v1.schema.json", contract("stock.reserved", 1, ORDERED, "")));
        assertEquals(Set.of("stock.reserved"), c.messageTypes());
        assertTrue(
                c.require("stock.reserved", 1).source().startsWith("jar:file:"),
                c.require("stock.reserved", 1).source());
        assertEquals(List.of(), c.violations("stock.reserved", 1, "i-1", "{\"itemId\": \"i-1\"}"));
    }

    @Test
    void theSameContractTwiceOnAClasspathIsOneButTwoDifferentOnesAreRefused() throws IOException {
        Path other = Files.createDirectories(dir.resolve("other/contracts/stock.reserved"));
        Files.writeString(other.resolve("v1.schema.json"), contract("stock.reserved", 1, ORDERED, ""));
        Path mine = Files.createDirectories(dir.resolve("mine/contracts/stock.reserved"));
        Files.writeString(mine.resolve("v1.schema.json"), contract("stock.reserved", 1, ORDERED, ""));
        URL[] both = {
            dir.resolve("mine").toUri().toURL(), dir.resolve("other").toUri().toURL()
        };
        try (URLClassLoader loader = new URLClassLoader(both, null)) {
            assertEquals(1, MessageContracts.load(loader).all().size());
        }
        Files.writeString(
                other.resolve("v1.schema.json"),
                contract("stock.reserved", 1, ORDERED, ", \"description\": \"changed\""));
        try (URLClassLoader loader = new URLClassLoader(both, null)) {
            String message = assertThrows(ContractDefinitionException.class, () -> MessageContracts.load(loader))
                    .getMessage();
            assertTrue(message.contains("stock.reserved v1 is defined twice, differently"), message);
        }
    }

    @Test
    void aCopiedFileThatKeepsItsOldIdIsRefused() {
        String message = refused(
                        Map.of("contracts/stock.reserved/v2.schema.json", contract("stock.reserved", 1, ORDERED, "")))
                .getMessage();
        assertTrue(message.contains("$id must be \"urn:outbox:contract:stock.reserved:v2\""), message);
    }

    @Test
    void aStrayFileInTheContractsFolderIsRefused() {
        String message =
                refused(Map.of("contracts/stock.reserved/latest.json", "{}")).getMessage();
        assertTrue(message.contains("must be named contracts/<message type>/v<version>.schema.json"), message);
    }

    @Test
    void aSchemaThatIsNotJsonSchemaIsRefused() {
        String message = refused(Map.of(
                        "contracts/stock.reserved/v1.schema.json",
                        contract("stock.reserved", 1, ORDERED, ", \"minProperties\": \"two\"")))
                .getMessage();
        assertTrue(message.contains("not a valid draft-07 JSON Schema"), message);
    }

    @Test
    void aMissingOrIncompleteOutboxBlockIsRefused() {
        String message = refused(Map.of(
                        "contracts/stock.reserved/v1.schema.json",
                        contract(
                                "stock.reserved",
                                1,
                                "{\"exchange\": \"stock.events\", \"aggregateType\": \"item\", \"aggregateIdProperty\": \"itemId\"}",
                                "")))
                .getMessage();
        assertTrue(message.contains("x-outbox.ordered must be true or false"), message);
        message = refused(Map.of(
                        "contracts/stock.reserved/v1.schema.json",
                        contract("stock.reserved", 1, ORDERED.replace("\"itemId\"", "\"count\""), "")))
                .getMessage();
        assertTrue(message.contains("aggregateIdProperty \"count\" must be a required property"), message);
    }

    @Test
    void anExampleThatBreaksItsOwnContractIsRefused() {
        String message = refused(Map.of(
                        "contracts/stock.reserved/v1.schema.json",
                        contract("stock.reserved", 1, ORDERED, ", \"examples\": [{\"count\": 1}]")))
                .getMessage();
        assertTrue(message.contains("an example breaks its own contract"), message);
    }

    /**
     * A contract sent to the operator API instead of shipped in a jar: the checks a file gets, and
     * the words, the document's source named where the file's URL is.
     */
    @Test
    void aContractReceivedAsADocumentIsCheckedAsItsFileWouldBe() throws IOException {
        String counted = contract("stock.counted", 1, UNORDERED, "");
        MessageContract parsed = MessageContracts.parse("stock.counted", 1, JSON.readTree(counted), SENT);
        assertEquals("stock.events", parsed.exchange());
        assertEquals("stock.audit", parsed.routingKey());
        assertFalse(parsed.ordered());
        assertEquals(SENT, parsed.source());
        assertEquals(List.of(), parsed.violations("i-1", JSON.readTree("{\"itemId\": \"i-1\"}")));

        for (String broken : List.of(
                "[]",
                contract("stock.reserved", 1, ORDERED, ", \"minProperties\": \"two\""),
                contract("stock.reserved", 9, ORDERED, ""),
                contract("stock.reserved", 1, ORDERED.replace("\"itemId\"", "\"count\""), ""),
                contract("stock.reserved", 1, ORDERED.replace(", \"ordered\": true", ""), ""),
                contract("stock.reserved", 1, ORDERED, ", \"examples\": [{\"count\": 1}]"),
                // a reference out of the document: nothing else travels with it, and no fetch is made
                contract(
                        "stock.reserved",
                        1,
                        ORDERED,
                        ", \"definitions\": {\"n\": {\"$ref\": \"http://127.0.0.1:9/n.json\"}}"))) {
            String fromFile = refused(Map.of("contracts/stock.reserved/v1.schema.json", broken))
                    .getMessage();
            String fromDocument = assertThrows(
                            ContractDefinitionException.class,
                            () -> MessageContracts.parse("stock.reserved", 1, JSON.readTree(broken), SENT))
                    .getMessage();
            assertEquals(
                    fromFile.substring(fromFile.indexOf("v1.schema.json: ") + "v1.schema.json".length()),
                    fromDocument.substring(SENT.length()),
                    broken);
        }
    }

    @Test
    void aReferenceWithinTheContractIsUsableAndOneOutsideItIsRefused() throws IOException {
        String local = contract(
                        "stock.reserved",
                        1,
                        ORDERED,
                        ", \"definitions\": {\"n\": {\"type\": \"integer\"}}, \"propertyNames\": {\"$ref\": \"#/definitions/s\"}")
                .replace("\"definitions\": {\"n\"", "\"definitions\": {\"s\": {\"type\": \"string\"}, \"n\"");
        MessageContract parsed = MessageContracts.parse("stock.reserved", 1, JSON.readTree(local), SENT);
        assertEquals(List.of(), parsed.violations("i-1", JSON.readTree("{\"itemId\": \"i-1\"}")));

        String outside = local.replace("#/definitions/s", "http://127.0.0.1:9/s.json");
        String message = assertThrows(
                        ContractDefinitionException.class,
                        () -> MessageContracts.parse("stock.reserved", 1, JSON.readTree(outside), SENT))
                .getMessage();
        assertTrue(message.contains("points outside the contract"), message);
    }

    @Test
    void aContractIsDraft07AndAnyOtherDialectIsRefusedWithoutBeingFetched() throws Exception {
        String draft7 = contract("stock.reserved", 1, ORDERED, "");
        for (String dialect :
                List.of("http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema")) {
            String doc = draft7.replace("http://json-schema.org/draft-07/schema#", dialect);
            assertEquals(
                    1,
                    MessageContracts.parse("stock.reserved", 1, JSON.readTree(doc), SENT)
                            .version());
        }
        String none = draft7.replace("\"$schema\": \"http://json-schema.org/draft-07/schema#\",", "");
        assertEquals(
                1,
                MessageContracts.parse("stock.reserved", 1, JSON.readTree(none), SENT)
                        .version());

        // a dialect named by URL would be fetched from it: a loopback listener counts whether it is
        try (java.net.ServerSocket listener =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            listener.setSoTimeout(200);
            String elsewhere = draft7.replace(
                    "http://json-schema.org/draft-07/schema#",
                    "http://127.0.0.1:" + listener.getLocalPort() + "/meta.json");
            for (String doc : List.of(elsewhere, draft7.replace("draft-07/schema#", "draft/2020-12/schema"))) {
                String message = assertThrows(
                                ContractDefinitionException.class,
                                () -> MessageContracts.parse("stock.reserved", 1, JSON.readTree(doc), SENT))
                        .getMessage();
                assertTrue(message.contains("is not draft-07"), message);
            }
            assertThrows(java.net.SocketTimeoutException.class, listener::accept, "nothing was fetched");
        }
    }

    @Test
    void aContractReceivedAsADocumentNamesAUsableTypeAndVersion() throws IOException {
        String valid = contract("stock.reserved", 1, ORDERED, "");
        for (String type : List.of("Stock.Reserved", "", "stock/reserved", ".stock")) {
            String message = assertThrows(
                            ContractDefinitionException.class,
                            () -> MessageContracts.parse(type, 1, JSON.readTree(valid), SENT))
                    .getMessage();
            assertTrue(message.startsWith(SENT + ": a message type is lower case"), message);
        }
        String message = assertThrows(
                        ContractDefinitionException.class,
                        () -> MessageContracts.parse("stock.reserved", 0, JSON.readTree(valid), SENT))
                .getMessage();
        assertEquals(SENT + ": a contract's version counts from 1, not 0", message);
    }

    @Test
    void orderingIsAPropertyOfTheTypeNotOfOneVersion() {
        String message = refused(Map.of(
                        "contracts/stock.reserved/v1.schema.json", contract("stock.reserved", 1, ORDERED, ""),
                        "contracts/stock.reserved/v2.schema.json",
                                contract("stock.reserved", 2, ORDERED.replace("true", "false"), "")))
                .getMessage();
        assertTrue(message.contains("'ordered' must be the same in every version"), message);
    }
}
