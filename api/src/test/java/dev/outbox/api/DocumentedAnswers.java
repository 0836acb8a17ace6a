package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.outbox.kernel.json.Json;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The running API's own {@code /openapi.json}, to hold an answer to the schema it documents for
 * that operation and status ({@link OpenApiContractIT} does so for the documented examples; the
 * tests of stored data the examples do not reach use this).
 */
final class DocumentedAnswers {
    private static final SchemaRegistry JSON_SCHEMA = SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaRegistryConfig(
                    SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
    private static final String REFS = "#/components/schemas/";

    private final JsonNode doc;
    private final JsonNode defs;
    /** Each schema compiled once: a generated test holds hundreds of answers to the same few. */
    private final Map<String, Schema> compiled = new HashMap<>();

    private DocumentedAnswers(JsonNode doc) {
        this.doc = doc;
        this.defs = rewrite(doc.get("components").get("schemas"));
    }

    static DocumentedAnswers of(ApiClient client) throws IOException, InterruptedException {
        ApiClient.Reply r = client.get("/openapi.json");
        assertEquals(200, r.status(), r.body());
        return new DocumentedAnswers(r.json());
    }

    JsonNode doc() {
        return doc;
    }

    /** The answer has the status given and a body the document's schema for it accepts. */
    void assertConforms(String verb, String template, ApiClient.Reply r, int status) {
        assertEquals(status, r.status(), r.body());
        JsonNode response =
                doc.path("paths").path(template).path(verb).path("responses").path(Integer.toString(status));
        if (response.has("$ref")) {
            // a shared answer of components/responses
            response = doc.at(response.get("$ref").asText().substring(1));
        }
        JsonNode content = response.path("content");
        String type = r.raw()
                .headers()
                .firstValue("Content-Type")
                .orElse("")
                .split(";")[0]
                .trim();
        JsonNode schema = content.path(type).path("schema");
        assertTrue(schema.isObject(), verb + " " + template + " documents no " + type + " for " + status);
        Schema validator = compiled.computeIfAbsent(verb + " " + template + " " + status + " " + type, k -> {
            ObjectNode wrapper = Json.mapper().createObjectNode();
            wrapper.put("$schema", "https://json-schema.org/draft/2020-12/schema");
            wrapper.setAll((ObjectNode) rewrite(schema));
            wrapper.set("$defs", defs.deepCopy());
            return JSON_SCHEMA.getSchema(wrapper);
        });
        List<com.networknt.schema.Error> errors = validator.validate(r.json());
        assertEquals(List.of(), errors, verb + " " + template + ": " + r.body());
    }

    private static JsonNode rewrite(JsonNode node) {
        try {
            return Json.mapper().readTree(node.toString().replace("\"" + REFS, "\"#/$defs/"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
