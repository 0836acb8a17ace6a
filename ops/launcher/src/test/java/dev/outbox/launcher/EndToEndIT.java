package dev.outbox.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.outbox.api.ApiApp;
import dev.outbox.config.Settings;
import dev.outbox.consumer.runtime.ConsumerApp;
import dev.outbox.kernel.json.Json;
import dev.outbox.messaging.Topology;
import dev.outbox.relay.RelayApp;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An order placed over HTTP arrives as a ledger entry, through the outbox and RabbitMQ. */
class EndToEndIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final TestBroker BROKER = TestBroker.get();
    private static final SchemaRegistry DRAFT7 = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7);
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @RegisterExtension
    final TestResources closing = new TestResources();

    @BeforeEach
    void clean() {
        DB.reset();
        BROKER.declareTopicExchange(Topology.ORDERS_EXCHANGE);
        BROKER.purgeIfExists(LedgerConsumer.QUEUE);
    }

    private static Settings settings() {
        Map<String, String> env = TestSystem.env(Map.of());
        return new Settings(env);
    }

    private JsonNode post(int port, String path, String body) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new AssertionError(r.statusCode() + " " + r.body());
        }
        return Json.mapper().readTree(r.body());
    }

    private String placeAndCapture(int port) throws Exception {
        String id = post(
                        port,
                        "/orders",
                        "{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"SKU-1\","
                                + "\"quantity\":2,\"unitPrice\":\"21.25\"}]}")
                .get("id")
                .asText();
        post(port, "/orders/" + id + "/capture", "{\"amount\":\"42.50\"}");
        return id;
    }

    @Test
    void anOrderPlacedOverHttpArrivesAsOneLedgerEntry() throws Exception {
        Launcher launcher = Launcher.start(settings());
        closing.add(launcher);
        String id = placeAndCapture(launcher.api().port());
        post(launcher.api().port(), "/orders/" + id + "/cancel", "{\"reason\":\"customer asked\"}");

        await().atMost(Duration.ofSeconds(20))
                .until(() -> DB.count("SELECT count(*) FROM ledger_entries WHERE order_id = ?::uuid", id) == 2);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED'") == 4);
        List<Map<String, Object>> entries = DB.rows(
                "SELECT entry_type, amount::text AS amount, currency FROM"
                        + " ledger_entries WHERE order_id = ?::uuid ORDER BY entry_type",
                id);
        assertEquals(
                List.of(
                        Map.of("entry_type", "CAPTURE", "amount", "42.5000", "currency", "EUR"),
                        Map.of("entry_type", "REFUND", "amount", "42.5000", "currency", "EUR")),
                entries);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> DB.count("SELECT count(*) FROM processed_messages WHERE consumer_name = 'ledger'") == 4);
    }

    @Test
    void everyMessageTheRelayPublishesMatchesTheServedAsyncApiDocument() throws Exception {
        Launcher launcher = Launcher.start(settings());
        closing.add(launcher);
        int port = launcher.api().port();
        try (RecordingQueue wire = BROKER.bindQueue(Topology.ORDERS_EXCHANGE, "#")) {
            String shipped = placeAndCapture(port);
            post(port, "/orders/" + shipped + "/ship", "{\"carrier\":\"DHL\",\"trackingNumber\":\"JJD01\"}");
            String refunded = placeAndCapture(port);
            post(port, "/orders/" + refunded + "/cancel", "{\"reason\":\"customer asked\"}");
            List<TestBroker.Received> received = wire.await(7, Duration.ofSeconds(20));

            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/asyncapi.json"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals(
                    "application/json", r.headers().firstValue("Content-Type").orElse(""));
            JsonNode doc = Json.mapper().readTree(r.body());
            try (InputStream spec = EndToEndIT.class.getResourceAsStream("/asyncapi/3.0.0.json")) {
                assertEquals(
                        List.of(),
                        DRAFT7.getSchema(Json.mapper().readTree(spec)).validate(doc),
                        "the served document is valid AsyncAPI 3.0.0");
            }

            Set<String> types = new TreeSet<>();
            for (TestBroker.Received m : received) {
                String type = m.delivery().getProperties().getType();
                types.add(type);
                JsonNode message = doc.get("components").get("messages").get(type + ".v" + m.header("message_version"));
                assertNotNull(message, type + " is documented");
                assertEquals(
                        List.of(),
                        DRAFT7.getSchema(message.get("payload"))
                                .validate(Json.mapper().readTree(m.body())),
                        type + " body");
                Map<String, Object> headers = new HashMap<>();
                m.delivery().getProperties().getHeaders().keySet().forEach(k -> headers.put(k, m.header(k)));
                assertEquals(
                        List.of(),
                        DRAFT7.getSchema(message.get("headers"))
                                .validate(Json.mapper().valueToTree(headers)),
                        type + " headers " + headers);
                assertEquals(
                        message.get("contentType").asText(),
                        m.delivery().getProperties().getContentType());
                String messageRef = "#/components/messages/" + type + ".v" + m.header("message_version");
                JsonNode ch = doc.get("channels").properties().stream()
                        .map(Map.Entry::getValue)
                        .filter(c -> c.get("messages").findValuesAsText("$ref").contains(messageRef))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(messageRef + " is on no channel"));
                assertEquals(
                        m.delivery().getEnvelope().getRoutingKey(),
                        ch.get("address").asText());
                assertEquals(
                        m.delivery().getEnvelope().getExchange(),
                        ch.get("bindings")
                                .get("amqp")
                                .get("exchange")
                                .get("name")
                                .asText());
            }
            assertEquals(
                    dev.outbox.kernel.contract.MessageContracts.onClasspath().all().stream()
                            .map(dev.outbox.kernel.contract.MessageContract::messageType)
                            .collect(java.util.stream.Collectors.toSet()),
                    types,
                    "every type the service emits went over the wire");
        }
    }

    @Test
    void ordersCommittedWhileTheRelayIsDownArePublishedWhenItStarts() throws Exception {
        ApiApp api = ApiApp.start(settings());
        closing.add(api);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(placeAndCapture(api.port()));
        }
        assertEquals(40, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PENDING'"));
        assertEquals(0, DB.count("SELECT count(*) FROM ledger_entries"));

        closing.add(ConsumerApp.start(settings(), LedgerConsumer.REGISTRATION));
        closing.add(RelayApp.start(settings()));
        await().atMost(Duration.ofSeconds(30)).until(() -> DB.count("SELECT count(*) FROM ledger_entries") == 20);
        assertEquals(40, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED'"));
        for (String id : ids) {
            assertEquals(1, DB.count("SELECT count(*) FROM ledger_entries WHERE order_id = ?::uuid", id));
        }
    }
}
