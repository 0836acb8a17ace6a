package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.outbox.api.docs.OpenApiDocument;
import dev.outbox.kernel.json.Json;
import dev.outbox.testkit.TestDatabase;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import java.lang.reflect.Method;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code /openapi.json} cannot drift from the code: it is valid OpenAPI 3.1 by swagger-parser,
 * documents exactly the operations the JAX-RS resources serve, and every example it documents,
 * sent to the running API, gets the status it documents and a body that validates against the
 * schema it documents for that status (response schemas allow no undocumented property).
 */
class OpenApiContractIT {
    static final String OPERATOR = "op-secret-" + UUID.randomUUID();
    private static final TestDatabase DB = TestDatabase.get();
    private static final SchemaRegistry JSON_SCHEMA = SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaRegistryConfig(
                    SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
    private static final List<Class<?>> RESOURCES = OpenApiDocument.RESOURCES;

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB, "OUTBOX_OPS_TOKEN", OPERATOR);

    private static String text;
    private static JsonNode doc;

    @BeforeAll
    static void fetch() throws Exception {
        ApiClient.Reply r = API.client().get("/openapi.json");
        assertEquals(200, r.status());
        text = r.body();
        doc = r.json();
    }

    @Test
    void theDocumentIsValidOpenApi31() {
        SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(text, null, null);
        assertEquals(List.of(), parsed.getMessages());
        assertEquals("3.1.0", parsed.getOpenAPI().getOpenapi());
        assertTrue(
                doc.get("info").get("version").asText().matches("\\d+\\.\\d+\\.\\d+.*"),
                "the build's version, not a placeholder: " + doc.get("info").get("version"));
    }

    @Test
    void theDocumentHasExactlyTheOperationsTheResourcesServe() {
        Set<String> served = new TreeSet<>();
        for (Class<?> resource : RESOURCES) {
            String base = resource.getAnnotation(Path.class).value();
            for (Method m : resource.getDeclaredMethods()) {
                String verb =
                        m.isAnnotationPresent(GET.class) ? "get" : m.isAnnotationPresent(POST.class) ? "post" : null;
                if (verb != null) {
                    Path p = m.getAnnotation(Path.class);
                    served.add(verb + " " + normalise(base + "/" + (p == null ? "" : p.value())));
                }
            }
        }
        Set<String> documented = new TreeSet<>();
        doc.get("paths")
                .properties()
                .forEach(p ->
                        p.getValue().fieldNames().forEachRemaining(verb -> documented.add(verb + " " + p.getKey())));
        assertEquals(served, documented);
    }

    private static String normalise(String path) {
        String p = ("/" + path).replaceAll("/+", "/");
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    @TestFactory
    Stream<DynamicTest> everyDocumentedExampleGetsItsDocumentedAnswer() {
        List<DynamicTest> tests = new ArrayList<>();
        doc.get("paths")
                .properties()
                .forEach(path -> path.getValue().properties().forEach(op -> {
                    String verb = op.getKey();
                    JsonNode operation = op.getValue();
                    JsonNode examples = operation.at("/requestBody/content/application~1json/examples");
                    if (examples.isMissingNode()) {
                        int expected = firstSuccess(operation);
                        tests.add(DynamicTest.dynamicTest(
                                verb + " " + path.getKey(),
                                () -> check(verb, path.getKey(), operation, null, expected)));
                    } else {
                        examples.properties()
                                .forEach(e -> tests.add(DynamicTest.dynamicTest(
                                        verb + " " + path.getKey() + " [" + e.getKey() + "]",
                                        () -> check(
                                                verb,
                                                path.getKey(),
                                                operation,
                                                e.getValue().get("value"),
                                                e.getValue()
                                                        .get("x-expect-status")
                                                        .asInt()))));
                    }
                }));
        assertTrue(tests.size() >= 30, "every operation and example: " + tests.size());
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> everyDocumentedNotFoundAnswersWithTheDocumentedProblem() {
        List<DynamicTest> tests = new ArrayList<>();
        doc.get("paths")
                .properties()
                .forEach(path -> path.getValue().properties().forEach(op -> {
                    if (path.getKey().contains("{id}")
                            && op.getValue().at("/responses/404").isObject()) {
                        tests.add(DynamicTest.dynamicTest(op.getKey() + " " + path.getKey(), () -> {
                            JsonNode body = op.getValue()
                                            .at("/requestBody/content/application~1json/examples")
                                            .elements()
                                            .hasNext()
                                    ? op.getValue()
                                            .at("/requestBody/content/application~1json/examples")
                                            .elements()
                                            .next()
                                            .get("value")
                                    : null;
                            ApiClient.Reply r = send(
                                    op.getKey(),
                                    path.getKey()
                                            .replace("{id}", UUID.randomUUID().toString()),
                                    op.getValue(),
                                    body == null ? null : body.toString());
                            assertConforms(op.getValue(), r, 404);
                        }));
                    }
                }));
        return tests.stream();
    }

    @Test
    void everyOpsOperationDocumentsAndAnswers401WithoutAToken() throws Exception {
        Iterator<Map.Entry<String, JsonNode>> paths =
                doc.get("paths").properties().iterator();
        int checked = 0;
        while (paths.hasNext()) {
            Map.Entry<String, JsonNode> path = paths.next();
            if (!path.getKey().startsWith("/ops/")) {
                continue;
            }
            for (Map.Entry<String, JsonNode> op : path.getValue().properties()) {
                String url = path.getKey().replace("{id}", UUID.randomUUID().toString());
                ApiClient.Reply r = op.getKey().equals("get")
                        ? API.client().get(url)
                        : API.client().post(url, "{}");
                assertConforms(op.getValue(), r, 401);
                checked++;
            }
        }
        assertTrue(checked >= 10, "ops operations checked: " + checked);
    }

    private static int firstSuccess(JsonNode operation) {
        Iterator<String> codes = operation.get("responses").fieldNames();
        while (codes.hasNext()) {
            String c = codes.next();
            if (c.startsWith("2")) {
                return Integer.parseInt(c);
            }
        }
        throw new AssertionError("no success response documented");
    }

    private void check(String verb, String template, JsonNode operation, JsonNode body, int expected) throws Exception {
        DocumentFixture fixture = fixture(operation.path("x-fixture").asText(""));
        String url = template.replace("{id}", fixture.id());
        for (JsonNode p : operation.path("parameters")) {
            if (p.has("example") && "path".equals(p.path("in").asText())) {
                url = url.replace(
                        "{" + p.get("name").asText() + "}", p.get("example").asText());
            }
        }
        List<String> query = new ArrayList<>();
        for (JsonNode p : operation.path("parameters")) {
            if (p.has("example") && "query".equals(p.path("in").asText())) {
                query.add(p.get("name").asText() + "="
                        + URLEncoder.encode(p.get("example").asText(), StandardCharsets.UTF_8));
            }
        }
        if (!query.isEmpty()) {
            url += "?" + String.join("&", query);
        }
        String json = body == null ? null : body.toString().replace("{fixture.aggregateId}", fixture.aggregateId());
        assertConforms(operation, send(verb, url, operation, json), expected);
    }

    private static ApiClient.Reply send(String verb, String url, JsonNode operation, String json) throws Exception {
        String[] auth =
                operation.has("security") ? new String[] {"Authorization", "Bearer " + OPERATOR} : new String[0];
        return verb.equals("get")
                ? API.client().get(url, auth)
                : API.client().post(url, json == null ? "{}" : json, auth);
    }

    /** Status as documented; a JSON body must validate against the schema documented for it. */
    private static void assertConforms(JsonNode operation, ApiClient.Reply r, int expected) {
        assertEquals(expected, r.status(), r.body());
        JsonNode response = operation.get("responses").get(Integer.toString(expected));
        assertNotNull(response, expected + " is not documented");
        if (response.has("$ref")) {
            // a shared answer of components/responses (413, 431, ...)
            response = doc.at(response.get("$ref").asText().substring(1));
            assertTrue(response.isObject(), "the reference resolves: " + operation.get("responses"));
        }
        String contentType = r.raw()
                .headers()
                .firstValue("Content-Type")
                .orElse("")
                .split(";")[0]
                .trim();
        JsonNode content = response.path("content");
        if (content.isMissingNode()) {
            return;
        }
        JsonNode media = content.get(contentType);
        assertNotNull(media, "the answer's " + contentType + " is not documented for " + expected + ": " + content);
        if (contentType.endsWith("json")) {
            List<Error> errors = validate(media.get("schema"), r.json());
            assertEquals(List.of(), errors, r.body());
        }
    }

    /** The response schema with the document's components beside it, so its references resolve. */
    static List<Error> validate(JsonNode schema, JsonNode instance) {
        String refs = "#/components/schemas/";
        ObjectNode wrapper = (ObjectNode) Json.mapper().createObjectNode();
        wrapper.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        wrapper.setAll((ObjectNode) rewrite(schema, refs));
        wrapper.set("$defs", rewrite(doc.get("components").get("schemas"), refs));
        return JSON_SCHEMA.getSchema(wrapper).validate(instance);
    }

    private static JsonNode rewrite(JsonNode node, String refs) {
        try {
            return Json.mapper().readTree(node.toString().replace("\"" + refs, "\"#/$defs/"));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static DocumentFixture fixture(String name) throws Exception {
        return DocumentFixture.make(name, doc, API);
    }
}
