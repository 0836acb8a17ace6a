package dev.outbox.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import dev.outbox.api.ApiMain;
import dev.outbox.consumer.runtime.ConsumerMain;
import dev.outbox.kernel.json.Json;
import dev.outbox.messaging.Topology;
import dev.outbox.relay.RelayMain;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import dev.outbox.testkit.otlp.OtlpReceiver;
import dev.outbox.testkit.otlp.OtlpReceiver.ReceivedSpan;
import dev.outbox.testkit.otlp.TraceWaterfall;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tracing across the real processes: the API, a relay and the ledger consumer, each its own JVM,
 * export their spans over OTLP to a receiver this test runs. An order placed and captured by a
 * traced client is one trace from the HTTP request through the transaction and its outbox insert,
 * the relay's publish (the child of the transaction stored on the row) to the consumer's
 * processing (the child of the publish); a replay adds a duplicate the consumer skips, in the same
 * trace; a delivery the consumer dead-letters is an error span, and the consumer's log line about
 * it names its trace.
 */
class TracingIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final TestBroker BROKER = TestBroker.get();
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TOKEN = "tracing-" + UUID.randomUUID();
    private static final HexFormat HEX = HexFormat.of();
    private static final Random RANDOM = new Random();

    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @RegisterExtension
    final TestResources closing = new TestResources();

    private OtlpReceiver otlp;
    private JavaProcess relay;
    private JavaProcess ledger;
    private int apiPort;

    @BeforeEach
    void startTheProcesses() throws Exception {
        DB.reset();
        BROKER.declareTopicExchange(Topology.ORDERS_EXCHANGE);
        BROKER.purgeIfExists(LedgerConsumer.QUEUE);
        otlp = OtlpReceiver.start();
        closing.add(otlp);
        Map<String, String> env = new HashMap<>(TestSystem.env(Map.of("OUTBOX_OPS_TOKEN", TOKEN)));
        env.putAll(otlp.env());
        relay = JavaProcess.start("tracing-relay", RelayMain.class.getName(), with(env, "OUTBOX_RELAY_ID", "traced"));
        closing.add(relay);
        ledger = JavaProcess.start("tracing-ledger", ConsumerMain.class.getName(), env, "ledger");
        closing.add(ledger);
        JavaProcess api = JavaProcess.start("tracing-api", ApiMain.class.getName(), env);
        closing.add(api);
        relay.awaitOutput(Pattern.compile("relay traced running"), WAIT);
        ledger.awaitOutput(Pattern.compile("ledger consumer running"), WAIT);
        api.awaitOutput(Pattern.compile("API listening on http://127\\.0\\.0\\.1:\\d+/"), WAIT);
        Matcher port = Pattern.compile("API listening on http://127\\.0\\.0\\.1:(\\d+)/")
                .matcher(api.output());
        assertTrue(port.find(), api.output());
        apiPort = Integer.parseInt(port.group(1));
    }

    private static Map<String, String> with(Map<String, String> env, String name, String value) {
        Map<String, String> out = new HashMap<>(env);
        out.put(name, value);
        return out;
    }

    @Test
    void anOrderPlacedAndCapturedIsOneTraceFromTheRequestToTheConsumer() throws Exception {
        String traceId = HEX.formatHex(randomBytes(16));
        String clientSpan = HEX.formatHex(randomBytes(8));
        String traceparent = "00-" + traceId + "-" + clientSpan + "-01";
        String order = Json.mapper()
                .readTree(post(
                        "/orders",
                        "{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"SKU-1\","
                                + "\"quantity\":2,\"unitPrice\":\"21.25\"}]}",
                        traceparent))
                .get("id")
                .asText();
        String created =
                (String) DB.rows("SELECT id::text AS id FROM message_outbox WHERE message_type = 'order.created'")
                        .get(0)
                        .get("id");
        // the creation applied first, so the capture is applied when it arrives, not held for it
        ReceivedSpan createdConsumed = otlp.await(
                s -> s.service().equals("outbox-ledger")
                        && created.equals(s.attribute("messaging.message.id"))
                        && "applied".equals(s.attribute("outbox.consumer.outcome")),
                WAIT);
        post("/orders/" + order + "/capture", "{\"amount\":\"42.50\"}", traceparent);
        String captured =
                (String) DB.rows("SELECT id::text AS id FROM message_outbox WHERE message_type = 'payment.captured'")
                        .get(0)
                        .get("id");

        ReceivedSpan consumed = otlp.await(
                s -> s.service().equals("outbox-ledger")
                        && captured.equals(s.attribute("messaging.message.id"))
                        && s.attribute("outbox.consumer.outcome") != null,
                WAIT);
        // each process exports on its own schedule: wait for each span, not for an order of arrival
        ReceivedSpan published = otlp.await(
                s -> s.service().equals("outbox-relay") && captured.equals(s.attribute("messaging.message.id")), WAIT);
        ReceivedSpan captureRequest = one(traceId, s -> s.name().equals("POST /orders/{id}/capture"));
        ReceivedSpan transaction = one(traceId, s -> s.name().equals("OrderService.capture"));
        List<ReceivedSpan> inserts = otlp.trace(traceId).stream()
                .filter(s -> s.name().equals("OutboxMapper.insert"))
                .toList();

        // the HTTP request, the child of the client's span; the transaction inside it; the insert inside that
        assertEquals("outbox-api", captureRequest.service());
        assertEquals("SPAN_KIND_SERVER", captureRequest.kind());
        assertEquals(clientSpan, captureRequest.parentSpanId(), otlp.describe());
        assertEquals("200", captureRequest.attribute("http.response.status_code"));
        assertEquals("/orders/{id}/capture", captureRequest.attribute("http.route"));
        List<ReceivedSpan> above = ancestors(transaction);
        assertTrue(above.contains(captureRequest), "the transaction inside the request: " + above);
        assertTrue(
                above.stream().anyMatch(s -> "begin-commit".equals(s.attribute("outbox.transaction")))
                        || "begin-commit".equals(transaction.attribute("outbox.transaction")),
                "one span begins and commits the transaction: " + above);
        assertTrue(
                inserts.stream().anyMatch(s -> s.parentSpanId().equals(transaction.spanId())),
                "the outbox insert inside the capture's transaction: " + otlp.describe());
        assertEquals("INSERT", inserts.get(0).attribute("db.operation.name"));

        // the relay's publish continues the trace from the row, with the messaging attributes
        assertEquals(traceId, published.traceId());
        assertEquals(transaction.spanId(), published.parentSpanId(), "publish is the child of the transaction");
        assertEquals("SPAN_KIND_PRODUCER", published.kind());
        assertEquals("publish orders.events", published.name());
        assertEquals("rabbitmq", published.attribute("messaging.system"));
        assertEquals("orders.events", published.attribute("messaging.destination.name"));
        assertEquals("payment.captured", published.attribute("messaging.rabbitmq.destination.routing_key"));
        assertTrue(Double.parseDouble(published.attribute("outbox.confirm.wait_ms")) >= 0);
        assertFalse(published.isError());

        // the consumer's processing is the child of the publish, and says what it did
        assertEquals(traceId, consumed.traceId());
        assertEquals(published.spanId(), consumed.parentSpanId(), "process is the child of the publish");
        assertEquals("SPAN_KIND_CONSUMER", consumed.kind());
        assertEquals("process ledger.order-events", consumed.name());
        assertEquals("applied", consumed.attribute("outbox.consumer.outcome"));
        assertEquals("ledger", consumed.attribute("messaging.consumer.group.name"));

        // the order's creation went the same way, in the same trace
        assertEquals(traceId, createdConsumed.traceId());
        ReceivedSpan place = one(traceId, s -> s.name().equals("OrderService.place"));
        ReceivedSpan createdPublished = one(traceId, s -> s.spanId().equals(createdConsumed.parentSpanId()));
        assertEquals(place.spanId(), createdPublished.parentSpanId());
        assertEquals(
                Set.of("outbox-api", "outbox-relay", "outbox-ledger"),
                otlp.trace(traceId).stream().map(ReceivedSpan::service).collect(Collectors.toSet()));

        // the rows carry the trace, for the console's row page
        assertEquals(
                2,
                DB.count("SELECT count(*) FROM message_outbox WHERE trace_id = ?", traceId),
                "both rows name the trace");

        // a replay: published again in the same trace, and the consumer skips it as a duplicate
        post("/ops/outbox/" + captured + "/replay", "{\"reason\":\"tracing test\"}", null, TOKEN);
        ReceivedSpan duplicate = otlp.await(
                s -> s.service().equals("outbox-ledger")
                        && captured.equals(s.attribute("messaging.message.id"))
                        && "duplicate".equals(s.attribute("outbox.consumer.outcome")),
                WAIT);
        assertEquals(traceId, duplicate.traceId());
        assertTrue(duplicate.events().stream().anyMatch(e -> e.startsWith("duplicate")), duplicate.events()::toString);
        ReceivedSpan replayed = one(traceId, s -> s.spanId().equals(duplicate.parentSpanId()));
        assertEquals(transaction.spanId(), replayed.parentSpanId(), "a replay continues from the row again");
        assertEquals(1, DB.count("SELECT count(*) FROM ledger_entries WHERE order_id = ?::uuid", order));

        // the README's picture of a trace is this one (-Doutbox.trace.picture=<png> writes it there)
        TraceWaterfall.write(
                otlp.trace(traceId),
                "One order placed, captured and replayed: "
                        + otlp.trace(traceId).size() + " spans of trace " + traceId.substring(0, 8) + "…",
                Path.of(System.getProperty("outbox.trace.picture", "target/trace.png")));
    }

    @Test
    void aDeliveryTheConsumerDeadLettersIsAnErrorSpanAndItsLogLineNamesTheTrace() throws Exception {
        String traceId = HEX.formatHex(randomBytes(16));
        String parent = HEX.formatHex(randomBytes(8));
        String messageId = UUID.randomUUID().toString();
        // a message the wire contract refuses (no message_type header and a body that is not JSON),
        // carrying a trace context as a relay would
        BROKER.withChannel(ch -> ch.basicPublish(
                Topology.ORDERS_EXCHANGE,
                "payment.captured",
                true,
                new AMQP.BasicProperties.Builder()
                        .messageId(messageId)
                        .deliveryMode(2)
                        .headers(Map.of("traceparent", "00-" + traceId + "-" + parent + "-01"))
                        .build(),
                "not json".getBytes(StandardCharsets.UTF_8)));

        ReceivedSpan dead = otlp.await(
                s -> s.service().equals("outbox-ledger") && messageId.equals(s.attribute("messaging.message.id")),
                WAIT);
        assertEquals(traceId, dead.traceId());
        assertEquals(parent, dead.parentSpanId());
        assertTrue(dead.isError(), dead.toString());
        assertEquals("dead_lettered", dead.attribute("outbox.consumer.outcome"));
        assertTrue(dead.events().contains("dead-lettered"), dead.events()::toString);
        ledger.awaitOutput(Pattern.compile("trace_id=" + traceId + ".*dead-lettered message_id=" + messageId), WAIT);
    }

    /** The span's parents, nearest first, as far as the trace reached the receiver. */
    private List<ReceivedSpan> ancestors(ReceivedSpan span) {
        List<ReceivedSpan> out = new java.util.ArrayList<>();
        List<ReceivedSpan> trace = otlp.trace(span.traceId());
        String parent = span.parentSpanId();
        while (!parent.isEmpty()) {
            String id = parent;
            ReceivedSpan p = trace.stream()
                    .filter(s -> s.spanId().equals(id))
                    .findFirst()
                    .orElse(null);
            if (p == null) {
                break;
            }
            out.add(p);
            parent = p.parentSpanId();
        }
        return out;
    }

    /** The one span of the trace that matches, waited for: each process exports on its own schedule. */
    private ReceivedSpan one(String traceId, java.util.function.Predicate<ReceivedSpan> match)
            throws InterruptedException {
        otlp.await(s -> s.traceId().equals(traceId) && match.test(s), WAIT);
        List<ReceivedSpan> found = otlp.trace(traceId).stream().filter(match).toList();
        assertEquals(1, found.size(), "one matching span among " + otlp.describe());
        return found.get(0);
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        do {
            RANDOM.nextBytes(b);
        } while (b[0] == 0);
        return b;
    }

    private String post(String path, String body, String traceparent) throws Exception {
        return post(path, body, traceparent, null);
    }

    private String post(String path, String body, String traceparent, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (traceparent != null) {
            request.header("traceparent", traceparent);
        }
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() >= 300) {
            throw new AssertionError(r.statusCode() + " " + r.body());
        }
        return r.body();
    }
}
