package dev.outbox.api.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The generated AsyncAPI document is a valid AsyncAPI 3.0.0 document by the AsyncAPI Initiative's
 * own JSON Schema, and says what the contracts say.
 */
class AsyncApiDocumentTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry DRAFT7 = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7);

    /** The AsyncAPI Initiative's JSON Schema of AsyncAPI 3.0.0, kept in the testkit (see its README there). */
    static Schema officialAsyncApiSchema() throws IOException {
        try (InputStream in = AsyncApiDocumentTest.class.getResourceAsStream("/asyncapi/3.0.0.json")) {
            return DRAFT7.getSchema(JSON.readTree(in));
        }
    }

    /** Validates {@code instance} against a schema taken from the document itself. */
    static List<Error> validate(JsonNode schema, JsonNode instance) {
        return DRAFT7.getSchema(schema).validate(instance);
    }

    private final MessageContracts contracts = MessageContracts.onClasspath();
    private final ObjectNode doc = AsyncApiDocument.generate(contracts, "1.2.3");

    @Test
    void theDocumentIsValidAsyncApi300() throws IOException {
        List<Error> errors = officialAsyncApiSchema().validate(doc);
        assertEquals(List.of(), errors);
    }

    @Test
    void theOfficialSchemaWouldNoticeABrokenDocument() throws IOException {
        ObjectNode broken = doc.deepCopy();
        ((ObjectNode) broken.get("operations").elements().next()).put("action", "publish");
        assertFalse(officialAsyncApiSchema().validate(broken).isEmpty(), "AsyncAPI 3 has send/receive, not publish");
    }

    @Test
    void everyContractIsAMessageOnAChannelOfItsExchangeAndRoutingKey() {
        assertEquals(
                contracts.all().size(), doc.get("components").get("messages").size());
        for (MessageContract c : contracts.all()) {
            String channelId = AsyncApiDocument.channelId(c);
            JsonNode channel = doc.get("channels").get(channelId);
            assertEquals(c.routingKey(), channel.get("address").asText());
            JsonNode amqp = channel.get("bindings").get("amqp");
            assertEquals("routingKey", amqp.get("is").asText());
            assertEquals(c.exchange(), amqp.get("exchange").get("name").asText());
            assertEquals("topic", amqp.get("exchange").get("type").asText());
            assertTrue(channel.get("messages").has(AsyncApiDocument.messageId(c)), c.toString());
            JsonNode operation = doc.get("operations").get("publish." + channelId);
            assertEquals("send", operation.get("action").asText());
            assertTrue(operation.get("bindings").get("amqp").get("mandatory").asBoolean());
            assertEquals(
                    2, operation.get("bindings").get("amqp").get("deliveryMode").asInt());
            JsonNode message = doc.get("components").get("messages").get(AsyncApiDocument.messageId(c));
            assertEquals(c.payloadSchema(), message.get("payload"), "the payload schema is the contract's");
        }
    }

    @Test
    void theExamplesInTheDocumentValidateAgainstItsOwnSchemas() {
        doc.get("components").get("messages").forEach(message -> {
            assertFalse(message.get("examples").isEmpty(), message.get("name").asText());
            for (JsonNode example : message.get("examples")) {
                assertEquals(List.of(), validate(message.get("payload"), example.get("payload")));
                assertEquals(List.of(), validate(message.get("headers"), example.get("headers")));
            }
        });
    }

    @Test
    void aPayloadBreakingTheContractBreaksTheDocumentsSchemaToo() {
        JsonNode captured = doc.get("components").get("messages").get("payment.captured.v1");
        ObjectNode bad = captured.get("examples").get(0).get("payload").deepCopy();
        bad.remove("paymentId");
        assertEquals(1, validate(captured.get("payload"), bad).size());
    }
}
