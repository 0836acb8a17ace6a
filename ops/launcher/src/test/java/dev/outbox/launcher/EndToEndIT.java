package dev.outbox.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.api.ApiApp;
import dev.outbox.config.Settings;
import dev.outbox.ledger.LedgerConsumerApp;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.json.Json;
import dev.outbox.relay.RelayApp;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An order placed over HTTP arrives as a ledger entry, through the outbox and RabbitMQ. */
class EndToEndIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final TestBroker BROKER = TestBroker.get();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void clean() {
        DB.reset();
        BROKER.declareTopicExchange(Topology.ORDERS_EXCHANGE);
        BROKER.purgeIfExists(Topology.LEDGER_QUEUE);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private static Settings settings() {
        Map<String, String> env = new HashMap<>(DB.env());
        env.putAll(BROKER.env());
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        env.put("OUTBOX_RELAY_POLL_INTERVAL", "20ms");
        env.put("OUTBOX_RELAY_HTTP_PORT", "0");
        env.put("OUTBOX_LEDGER_HTTP_PORT", "0");
        return new Settings(env);
    }

    private JsonNode post(int port, String path, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new AssertionError(r.statusCode() + " " + r.body());
        }
        return Json.mapper().readTree(r.body());
    }

    private String placeAndCapture(int port) throws Exception {
        String id = post(port, "/orders", "{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"SKU-1\","
                + "\"quantity\":2,\"unitPrice\":\"21.25\"}]}").get("id").asText();
        post(port, "/orders/" + id + "/capture", "{\"amount\":\"42.50\"}");
        return id;
    }

    @Test
    void anOrderPlacedOverHttpArrivesAsOneLedgerEntry() throws Exception {
        Launcher launcher = Launcher.start(settings());
        closing.add(launcher);
        String id = placeAndCapture(launcher.api().port());
        post(launcher.api().port(), "/orders/" + id + "/cancel", "{\"reason\":\"customer asked\"}");

        await().atMost(Duration.ofSeconds(20)).until(() -> DB.count(
                "SELECT count(*) FROM ledger_entries WHERE order_id = ?::uuid", id) == 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> DB.count(
                "SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED'") == 4);
        List<Map<String, Object>> entries = DB.rows("SELECT entry_type, amount::text AS amount, currency FROM"
                + " ledger_entries WHERE order_id = ?::uuid ORDER BY entry_type", id);
        assertEquals(List.of(Map.of("entry_type", "CAPTURE", "amount", "42.5000", "currency", "EUR"),
                Map.of("entry_type", "REFUND", "amount", "42.5000", "currency", "EUR")), entries);
        await().atMost(Duration.ofSeconds(10)).until(() -> DB.count(
                "SELECT count(*) FROM processed_messages WHERE consumer_name = 'ledger'") == 4);
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

        closing.add(LedgerConsumerApp.start(settings()));
        closing.add(RelayApp.start(settings()));
        await().atMost(Duration.ofSeconds(30)).until(() -> DB.count("SELECT count(*) FROM ledger_entries") == 20);
        assertEquals(40, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED'"));
        for (String id : ids) {
            assertEquals(1, DB.count("SELECT count(*) FROM ledger_entries WHERE order_id = ?::uuid", id));
        }
    }
}
