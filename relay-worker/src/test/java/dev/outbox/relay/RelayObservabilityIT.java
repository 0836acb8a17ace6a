package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.messaging.Topology;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.junit.TestResources;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The relay's /metrics and /health, read over HTTP like Prometheus and a load balancer would. */
class RelayObservabilityIT {
    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().topology().purgeLedger();

    private final TestResources closing = fx.resources();

    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private HttpResponse<String> get(RelayApp relay, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + relay.httpPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static double metric(String body, String name) {
        return metric(body, name, "");
    }

    /** The sum of a metric's samples whose labels contain {@code label} (e.g. error_code="X"). */
    private static double metric(String body, String name, String label) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? ([0-9.eE+-]+|NaN)$")
                .matcher(body);
        double total = 0;
        boolean found = false;
        while (m.find()) {
            if (label.isEmpty() || (m.group(1) != null && m.group(1).contains(label))) {
                total += Double.parseDouble(m.group(2));
                found = true;
            }
        }
        assertTrue(found, name + " " + label + " is exported");
        return total;
    }

    @Test
    void metricsCountWhatTheRelayDidAndGaugesShowTheTable() throws Exception {
        RecordingQueue q = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#");
        closing.add(q);
        for (int i = 0; i < 5; i++) {
            fx.placeAndCapture(MessageContext.none());
        }
        fx.insertRaw("test.lost", "no.binding", "outbox.test.unbound-exchange-for-metrics", "{}");
        RelayApp relay = RelayApp.start(new Settings(fx.env()));
        closing.add(relay);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> fx.countByStatus("PUBLISHED") == 10 && fx.countByStatus("PARKED") == 1);

        String body = get(relay, "/metrics").body();
        assertEquals(10, metric(body, "outbox_publish_successes_total"), 0.0);
        assertTrue(metric(body, "outbox_publish_attempts_total") >= 11);
        assertEquals(
                1,
                metric(body, "outbox_publish_failures_total", "error_code=\"EXCHANGE_NOT_FOUND\""),
                0.0,
                "failures by code");
        assertTrue(metric(body, "outbox_confirm_latency_seconds_count") >= 10);
        assertTrue(body.contains("outbox_confirm_latency_seconds_bucket"), "a histogram");
        assertTrue(metric(body, "outbox_commit_to_publish_seconds_count") >= 10);
        assertTrue(metric(body, "outbox_batch_size_count") >= 1);
        metric(body, "outbox_lost_leases_total");
        metric(body, "outbox_stale_locks_total");
        assertEquals(0, metric(body, "outbox_relay_mark_failures_total", "kind=\"permanent\""), 0.0);
        assertEquals(0, metric(body, "outbox_relay_mark_failures_total", "kind=\"transient\""), 0.0);
        assertEquals(0, metric(body, "outbox_relay_outcomes_unrecorded_total"), 0.0);
        assertEquals(0, metric(body, "outbox_relay_listen_failures_total", "kind=\"unexpected\""), 0.0);
        metric(body, "outbox_relay_listen_failures_total", "kind=\"database\"");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> metric(get(relay, "/metrics").body(), "outbox_parked_count") == 1.0);
        String later = get(relay, "/metrics").body();
        assertEquals(
                1,
                metric(later, "outbox_parked_count", "error_code=\"EXCHANGE_NOT_FOUND\""),
                0.0,
                "parked by error code");
        assertEquals(0, metric(later, "outbox_pending_count"), 0.0);
        metric(later, "outbox_oldest_pending_age_seconds");
        metric(later, "outbox_blocked_aggregates");
        assertEquals(1, metric(later, "outbox_broker_available"), 0.0);
        metric(later, "jvm_memory_used_bytes");
    }

    @Test
    void readinessFollowsTheBrokerAndLivenessTheProcess() throws Exception {
        TcpProxy proxy = TcpProxy.start(fx.broker.host(), fx.broker.port());
        closing.add(proxy);
        RelayApp relay = RelayApp.start(new Settings(fx.env(
                "OUTBOX_AMQP_URI",
                fx.broker.uriVia(proxy.host(), proxy.port()),
                "OUTBOX_RELAY_RECONNECT_INITIAL",
                "100ms",
                "OUTBOX_RELAY_RECONNECT_MAX",
                "500ms")));
        closing.add(relay);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> get(relay, "/health/ready").statusCode() == 200);
        assertTrue(get(relay, "/health/ready").body().contains("\"database\":\"UP\""));

        proxy.cut();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> get(relay, "/health/ready").statusCode() == 503);
        HttpResponse<String> down = get(relay, "/health/ready");
        assertTrue(down.body().contains("\"broker\":\"DOWN"), down.body());
        assertEquals(200, get(relay, "/health/live").statusCode(), "alive though not ready: do not restart it");

        proxy.restore();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> get(relay, "/health/ready").statusCode() == 200);
    }
}
