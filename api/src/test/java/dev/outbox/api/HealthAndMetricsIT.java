package dev.outbox.api;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestDatabase;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * /health and /metrics on the API: unauthenticated, and honest about what the API depends on to
 * take writes (the database; never the broker, which only the relay talks to).
 */
class HealthAndMetricsIT {
    private static final TestDatabase DB = TestDatabase.get();

    private static ApiApp start(Map<String, String> database, String amqpUri) {
        Map<String, String> env = new HashMap<>(database);
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        if (amqpUri != null) {
            env.put("OUTBOX_AMQP_URI", amqpUri);
        }
        return ApiApp.start(new Settings(env));
    }

    /**
     * The API's readiness is whether it can take writes: its database. The broker is the relay's
     * business; with the README's own cluster URI (several hosts, so no single host in it) and
     * with nothing listening at the broker's address, the API is ready.
     */
    @Test
    void readyWhenTheDatabaseAnswersWhateverTheBroker() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort(); // free once closed: connection refused
        }
        for (String broker :
                new String[] {"amqp://u:p@h1:5701,h2:5702/v", "amqp://guest:guest@127.0.0.1:" + closedPort + "/", null
                }) {
            try (ApiApp app = start(DB.env(), broker)) {
                ApiClient c = new ApiClient(app.port());
                assertEquals(200, c.get("/health/live").status());
                ApiClient.Reply ready = c.get("/health/ready");
                assertEquals(200, ready.status(), broker + ": " + ready.body());
                assertEquals("UP", ready.json().get("status").asText());
                assertEquals(
                        List.of("database"),
                        iterate(ready.json().get("checks").fieldNames()),
                        "the API checks what it needs to take writes, nothing else");
                assertEquals("UP", ready.json().get("checks").get("database").asText());
            }
        }
    }

    @Test
    void notReadyWhileTheDatabaseIsUnreachableAndReadyAgainAfter() throws Exception {
        DB.reset();
        try (TcpProxy proxy = TcpProxy.start(DB.host(), DB.port())) {
            Map<String, String> env = new HashMap<>(DB.env());
            env.put("OUTBOX_DB_URL", DB.urlVia(proxy.host(), proxy.port()));
            env.put("OUTBOX_DB_CONNECT_TIMEOUT", "1s");
            try (ApiApp app = start(env, null)) {
                ApiClient c = new ApiClient(app.port());
                assertEquals(200, c.get("/health/ready").status());

                proxy.cut();
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    ApiClient.Reply ready = c.get("/health/ready");
                    assertEquals(503, ready.status(), ready.body());
                    assertTrue(
                            ready.json().get("checks").get("database").asText().startsWith("DOWN"), ready.body());
                    assertFalse(ready.body().contains("postgres"), "no credentials or URL in health output");
                });
                assertEquals(200, c.get("/health/live").status(), "alive, just not ready");

                proxy.restore();
                await().atMost(Duration.ofSeconds(20))
                        .untilAsserted(
                                () -> assertEquals(200, c.get("/health/ready").status()));
            }
        }
    }

    private static List<String> iterate(java.util.Iterator<String> names) {
        List<String> out = new java.util.ArrayList<>();
        names.forEachRemaining(out::add);
        return out;
    }

    @Test
    void metricsExposeTheOutboxGauges() throws Exception {
        DB.reset();
        DB.update("INSERT INTO message_outbox (aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                + " payload, status, last_error_code) VALUES ('order', 'm', 't', 'orders.events', 't', '{}',"
                + " 'PARKED', 'UNROUTABLE')");
        try (ApiApp app = start(DB.env(), null)) {
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
