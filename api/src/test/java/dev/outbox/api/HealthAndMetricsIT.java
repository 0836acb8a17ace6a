package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.testkit.BrokerEndpoint;
import dev.outbox.testkit.TestDatabase;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** /health and /metrics on the API: unauthenticated, and honest about their dependencies. */
class HealthAndMetricsIT {
    private static final TestDatabase DB = TestDatabase.get();

    private static ApiApp start(String amqpUri) {
        Map<String, String> env = new HashMap<>(DB.env());
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        if (amqpUri != null) {
            env.put("OUTBOX_AMQP_URI", amqpUri);
        }
        return ApiApp.start(new Settings(env));
    }

    @Test
    void readyWhenTheDatabaseAndTheBrokerAnswer() throws Exception {
        String broker = BrokerEndpoint.get().uri();
        try (ApiApp app = start(broker)) {
            ApiClient c = new ApiClient(app.port());
            assertEquals(200, c.get("/health/live").status());
            ApiClient.Reply ready = c.get("/health/ready");
            assertEquals(200, ready.status(), ready.body());
            assertEquals("UP", ready.json().get("checks").get("database").asText());
            assertEquals("UP", ready.json().get("checks").get("broker").asText(), "the broker spoke AMQP");
        }
    }

    @Test
    void notReadyWhenNothingSpeaksAmqpAtTheBrokerAddress() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort(); // free once closed: connection refused
        }
        try (ApiApp app = start("amqp://guest:guest@127.0.0.1:" + closedPort + "/")) {
            ApiClient c = new ApiClient(app.port());
            ApiClient.Reply ready = c.get("/health/ready");
            assertEquals(503, ready.status());
            assertTrue(ready.json().get("checks").get("broker").asText().startsWith("DOWN"), ready.body());
            assertEquals(200, c.get("/health/live").status(), "alive, just not ready");
            assertTrue(!ready.body().contains("guest"), "no credentials in health output");
        }
    }

    @Test
    void metricsExposeTheOutboxGauges() throws Exception {
        DB.reset();
        DB.update("INSERT INTO message_outbox (aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                + " payload, status, last_error_code) VALUES ('order', 'm', 't', 'orders.events', 't', '{}',"
                + " 'PARKED', 'UNROUTABLE')");
        try (ApiApp app = start(null)) {
            ApiClient.Reply metrics = new ApiClient(app.port()).get("/metrics");
            assertEquals(200, metrics.status());
            assertTrue(metrics.header("Content-Type").startsWith("text/plain"), metrics.header("Content-Type"));
            String body = metrics.body();
            for (String name : new String[] {
                "outbox_pending_count",
                "outbox_in_progress_count",
                "outbox_retryable_failed_count",
                "outbox_oldest_pending_age_seconds",
                "outbox_blocked_aggregates"
            }) {
                assertTrue(body.contains(name + "{"), name);
            }
            String line = body.lines()
                    .filter(l -> l.startsWith("outbox_parked_count{") && l.contains("error_code=\"UNROUTABLE\""))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(body));
            assertEquals(1.0, Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), 0.0, line);
        }
    }
}
