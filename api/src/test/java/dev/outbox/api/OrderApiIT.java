package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.testkit.TestDatabase;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The public HTTP API on a real Grizzly server and real PostgreSQL. */
class OrderApiIT {
    static final String ORDER = "{\"customerId\":\"cust-1\",\"currency\":\"EUR\",\"lines\":["
            + "{\"sku\":\"SKU-1\",\"quantity\":2,\"unitPrice\":\"10.00\"},"
            + "{\"sku\":\"SKU-2\",\"quantity\":1,\"unitPrice\":\"22.50\"}]}";

    private static final TestDatabase DB = TestDatabase.get();

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB);

    private JsonNode place() throws Exception {
        ApiClient.Reply r = API.client().post("/orders", ORDER);
        assertEquals(201, r.status(), r.body());
        return r.json();
    }

    private long rows(String table) {
        return DB.count("SELECT count(*) FROM " + table);
    }

    @Test
    void placingAnOrderCommitsTheOrderAndItsOutboxRowTogether() throws Exception {
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        ApiClient.Reply r = API.client()
                .post(
                        "/orders",
                        ORDER,
                        "X-Correlation-Id",
                        "corr-123",
                        "traceparent",
                        traceparent,
                        "X-Tenant-Id",
                        "tenant-a");

        assertEquals(201, r.status(), r.body());
        JsonNode order = r.json();
        String id = order.get("id").asText();
        assertEquals("/orders/" + id, URI.create(r.header("Location")).getPath());
        assertEquals("corr-123", r.header("X-Correlation-Id"));
        assertEquals("PLACED", order.get("status").asText());
        assertEquals(1, order.get("version").asInt());
        assertEquals("42.50", order.get("total").asText());
        assertEquals("EUR", order.get("currency").asText());
        assertEquals("tenant-a", order.get("tenantId").asText());
        assertEquals(2, order.get("lines").size());
        assertEquals("20.00", order.get("lines").get(0).get("lineTotal").asText());

        List<Map<String, Object>> outbox = DB.rows("SELECT * FROM message_outbox");
        assertEquals(1, outbox.size());
        Map<String, Object> row = outbox.get(0);
        assertEquals("order.created", row.get("message_type"));
        assertEquals("PENDING", row.get("status"));
        assertEquals(id, row.get("aggregate_id"));
        assertEquals(1L, row.get("aggregate_version"));
        assertEquals("orders.events", row.get("exchange_name"));
        assertEquals("order.created", row.get("routing_key"));
        assertEquals("corr-123", row.get("correlation_id"));
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", row.get("trace_id"));
        assertEquals("tenant-a", row.get("tenant_id"));
        JsonNode payload = DB.rows("SELECT payload::text AS p FROM message_outbox").stream()
                .map(m -> parse((String) m.get("p")))
                .findFirst()
                .orElseThrow();
        assertEquals(id, payload.get("orderId").asText());
        assertEquals("42.50", payload.get("total").asText());
        JsonNode headers = parse((String) DB.scalar("SELECT headers::text FROM message_outbox"));
        assertEquals(traceparent, headers.get("traceparent").asText());
    }

    @Test
    void aCorrelationIdIsGeneratedWhenAbsentAndEchoed() throws Exception {
        ApiClient.Reply r = API.client().post("/orders", ORDER);
        String generated = r.header("X-Correlation-Id");
        assertNotNull(generated);
        assertEquals(generated, DB.scalar("SELECT correlation_id FROM message_outbox"));
    }

    @Test
    void getReturnsTheOrder() throws Exception {
        String id = place().get("id").asText();
        ApiClient.Reply r = API.client().get("/orders/" + id);
        assertEquals(200, r.status());
        assertEquals(id, r.json().get("id").asText());
        assertEquals("PLACED", r.json().get("status").asText());
    }

    @Test
    void captureThenCancelRefundsAndEmitsEveryEventInVersionOrder() throws Exception {
        String id = place().get("id").asText();
        ApiClient.Reply captured = API.client().post("/orders/" + id + "/capture", "{\"amount\":\"42.50\"}");
        assertEquals(200, captured.status(), captured.body());
        assertEquals("CAPTURED", captured.json().get("status").asText());
        assertEquals(2, captured.json().get("version").asInt());
        String paymentId = captured.json().get("paymentId").asText();

        ApiClient.Reply cancelled = API.client().post("/orders/" + id + "/cancel", "{\"reason\":\"out of stock\"}");
        assertEquals(200, cancelled.status(), cancelled.body());
        assertEquals("CANCELLED", cancelled.json().get("status").asText());
        assertEquals(4, cancelled.json().get("version").asInt());
        assertEquals("out of stock", cancelled.json().get("cancelReason").asText());

        List<Map<String, Object>> events = DB.rows("SELECT id, message_type, aggregate_version, causation_id,"
                + " payload::text AS payload FROM message_outbox ORDER BY aggregate_version");
        assertEquals(
                List.of("order.created", "payment.captured", "order.cancelled", "payment.refunded"),
                events.stream().map(e -> e.get("message_type")).toList());
        assertEquals(
                List.of(1L, 2L, 3L, 4L),
                events.stream().map(e -> e.get("aggregate_version")).toList());
        assertEquals(
                events.get(2).get("id").toString(),
                events.get(3).get("causation_id"),
                "the refund was caused by the cancellation");
        assertEquals(
                paymentId,
                parse((String) events.get(3).get("payload")).get("paymentId").asText());
        assertEquals(4L, DB.scalar("SELECT version FROM orders WHERE id = ?::uuid", id));
    }

    @Test
    void shippingACapturedOrderRecordsOrderShippedAndAShippedOrderCannotBeCancelled() throws Exception {
        String id = place().get("id").asText();
        assertEquals(
                200,
                API.client()
                        .post("/orders/" + id + "/capture", "{\"amount\":\"42.50\"}")
                        .status());
        ApiClient.Reply shipped = API.client()
                .post("/orders/" + id + "/ship", "{\"carrier\":\"DHL\",\"trackingNumber\":\"JJD000390007983\"}");
        assertEquals(200, shipped.status(), shipped.body());
        assertEquals("SHIPPED", shipped.json().get("status").asText());
        assertEquals(3, shipped.json().get("version").asInt());

        Map<String, Object> row = DB.rows("SELECT message_type, aggregate_version, exchange_name, routing_key,"
                        + " payload::text AS payload FROM message_outbox WHERE aggregate_version = 3")
                .get(0);
        assertEquals("order.shipped", row.get("message_type"));
        assertEquals("orders.events", row.get("exchange_name"), "the contract says where it goes");
        assertEquals("order.shipped", row.get("routing_key"));
        JsonNode payload = parse((String) row.get("payload"));
        assertEquals(id, payload.get("orderId").asText());
        assertEquals("DHL", payload.get("carrier").asText());
        assertEquals("JJD000390007983", payload.get("trackingNumber").asText());

        long before = rows("message_outbox");
        assertProblem(
                API.client().post("/orders/" + id + "/cancel", "{\"reason\":\"too late\"}"), 409, "illegal_transition");
        assertProblem(
                API.client().post("/orders/" + id + "/ship", "{\"carrier\":\"UPS\",\"trackingNumber\":\"1\"}"),
                409,
                "illegal_transition");
        assertEquals(before, rows("message_outbox"));
        assertEquals("SHIPPED", DB.scalar("SELECT status FROM orders"));
    }

    @Test
    void shippingWithoutACarrierOrBeforeCaptureIsRefusedAndWritesNothing() throws Exception {
        String id = place().get("id").asText();
        ApiClient.Reply missing = API.client().post("/orders/" + id + "/ship", "{\"trackingNumber\":\"1\"}");
        assertProblem(missing, 400, "validation_failed");
        assertEquals("carrier", missing.json().get("errors").get(0).get("field").asText(), missing.body());
        assertProblem(
                API.client().post("/orders/" + id + "/ship", "{\"carrier\":\"DHL\",\"trackingNumber\":\"1\"}"),
                409,
                "illegal_transition");
        assertEquals(1, rows("message_outbox"));
        assertEquals("PLACED", DB.scalar("SELECT status FROM orders"));
    }

    @Test
    void cancellingAPlacedOrderEmitsNoRefund() throws Exception {
        String id = place().get("id").asText();
        assertEquals(
                200,
                API.client()
                        .post("/orders/" + id + "/cancel", "{\"reason\":\"changed mind\"}")
                        .status());
        assertEquals(
                List.of("order.created", "order.cancelled"),
                DB.rows("SELECT message_type FROM message_outbox ORDER BY aggregate_version").stream()
                        .map(m -> m.get("message_type"))
                        .toList());
    }

    @Test
    void capturingTwiceIsAConflictAndWritesNothing() throws Exception {
        String id = place().get("id").asText();
        assertEquals(
                200,
                API.client()
                        .post("/orders/" + id + "/capture", "{\"amount\":\"42.50\"}")
                        .status());
        long before = rows("message_outbox");
        ApiClient.Reply r = API.client().post("/orders/" + id + "/capture", "{\"amount\":\"42.50\"}");
        assertProblem(r, 409, "illegal_transition");
        assertEquals(before, rows("message_outbox"));
        assertEquals(2L, DB.scalar("SELECT version FROM orders WHERE id = ?::uuid", id));
    }

    @Test
    void capturingACancelledOrderIsAConflict() throws Exception {
        String id = place().get("id").asText();
        API.client().post("/orders/" + id + "/cancel", "{\"reason\":\"x\"}");
        long before = rows("message_outbox");
        assertProblem(
                API.client().post("/orders/" + id + "/capture", "{\"amount\":\"42.50\"}"), 409, "illegal_transition");
        assertEquals(before, rows("message_outbox"));
    }

    @Test
    void capturingAnAmountOtherThanTheTotalIsUnprocessable() throws Exception {
        String id = place().get("id").asText();
        assertProblem(
                API.client().post("/orders/" + id + "/capture", "{\"amount\":\"42.49\"}"),
                422,
                "capture_amount_mismatch");
        assertEquals(1, rows("message_outbox"));
        assertEquals("PLACED", DB.scalar("SELECT status FROM orders"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "malformed JSON|{\"customerId\":|malformed_json|",
                "empty body||validation_failed|body",
                "missing customer|{\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"1.00\"}]}|validation_failed|customerId",
                "money as a JSON number|{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":1.5}]}|validation_failed|lines[0].unitPrice",
                "quantity as a string|{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\",\"quantity\":\"1\",\"unitPrice\":\"1.00\"}]}|validation_failed|lines[0].quantity",
                "unknown field|{\"customerId\":\"c\",\"currency\":\"EUR\",\"discount\":5,\"lines\":[]}|validation_failed|discount",
                "unknown currency|{\"customerId\":\"c\",\"currency\":\"ABC\",\"lines\":[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"1.00\"}]}|validation_failed|currency",
                "too many decimals|{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"1.001\"}]}|validation_failed|lines[0].unitPrice",
                "zero quantity|{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\",\"quantity\":0,\"unitPrice\":\"1.00\"}]}|validation_failed|lines[0].quantity",
                "no lines|{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[]}|validation_failed|lines",
            })
    void invalidOrdersAreRefusedWithAProblemAndWriteNothing(String name, String body, String code, String field)
            throws Exception {
        ApiClient.Reply r = API.client().post("/orders", body);
        JsonNode problem = assertProblem(r, 400, code);
        if (field != null) {
            List<String> fields = new java.util.ArrayList<>();
            problem.get("errors").forEach(e -> fields.add(e.get("field").asText()));
            assertTrue(fields.contains(field), fields + " should name " + field);
        }
        assertEquals(0, rows("orders"));
        assertEquals(0, rows("order_lines"));
        assertEquals(0, rows("message_outbox"));
    }

    @Test
    void aMalformedIdIsABadRequestAndAnUnknownOneIsNotFound() throws Exception {
        assertProblem(API.client().get("/orders/not-a-uuid"), 400, "invalid_id");
        assertProblem(API.client().get("/orders/" + UUID.randomUUID()), 404, "not_found");
        assertProblem(
                API.client().post("/orders/" + UUID.randomUUID() + "/capture", "{\"amount\":\"1.00\"}"),
                404,
                "not_found");
        assertProblem(
                API.client().post("/orders/" + UUID.randomUUID() + "/cancel", "{\"reason\":\"x\"}"), 404, "not_found");
        assertEquals(0, rows("message_outbox"));
    }

    @Test
    void protocolErrorsAreProblemsToo() throws Exception {
        assertProblem(API.client().get("/nowhere"), 404, "not_found");
        ApiClient.Reply wrongType = API.client()
                .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + API.port() + "/orders"))
                        .header("Content-Type", "text/plain")
                        .POST(HttpRequest.BodyPublishers.ofString("hello")));
        assertProblem(wrongType, 415, "unsupported_media_type");
        ApiClient.Reply delete = API.client()
                .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + API.port() + "/orders"))
                        .DELETE());
        assertProblem(delete, 405, "method_not_allowed");
    }

    @Test
    void badHeadersAreRefused() throws Exception {
        assertProblem(API.client().post("/orders", ORDER, "X-Tenant-Id", "bad tenant!"), 400, "validation_failed");
        assertProblem(
                API.client().post("/orders", ORDER, "X-Correlation-Id", "x".repeat(200)), 400, "validation_failed");
        assertEquals(0, rows("orders"));
    }

    @Test
    void anInvalidTraceparentIsIgnoredNotStored() throws Exception {
        API.client().post("/orders", ORDER, "traceparent", "00-zzzz-1234-01");
        assertEquals(null, DB.scalar("SELECT trace_id FROM message_outbox"));
    }

    private static JsonNode assertProblem(ApiClient.Reply r, int status, String code) {
        assertEquals(status, r.status(), r.body());
        assertEquals("application/problem+json", r.header("Content-Type"));
        JsonNode p = r.json();
        assertEquals(status, p.get("status").asInt());
        assertEquals(code, p.get("code").asText(), r.body());
        assertNotNull(p.get("title"));
        assertNotNull(p.get("detail"));
        assertNotNull(p.get("type"));
        assertNotNull(r.header("X-Correlation-Id"));
        assertFalse(r.body().contains("Exception"), "no exception names leak: " + r.body());
        assertFalse(r.body().contains("at dev.outbox"), "no stack traces leak");
        assertFalse(r.body().toLowerCase().contains("sql"), "no SQL leaks");
        return p;
    }

    private static JsonNode parse(String json) {
        try {
            return dev.outbox.kernel.json.Json.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
