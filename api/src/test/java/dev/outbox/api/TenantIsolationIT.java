package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.kernel.json.Json;
import dev.outbox.testkit.TestDatabase;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An order belongs to the tenant it was placed with ({@code X-Tenant-Id}; no header is a tenant
 * of its own). Any other tenant gets the same 404 as for an order that does not exist, for reads
 * and writes, and nothing is written; every event of the order carries the order's tenant.
 */
class TenantIsolationIT {
    private static final String TENANT = "X-Tenant-Id";
    private static final String CAPTURE = "{\"amount\":\"42.50\"}";
    private static final String CANCEL = "{\"reason\":\"changed mind\"}";
    private static final String SHIP = "{\"carrier\":\"DHL\",\"trackingNumber\":\"JJD000390007983\"}";

    private static final TestDatabase DB = TestDatabase.get();

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB);

    private String place(String... headers) throws Exception {
        ApiClient.Reply r = API.client().post("/orders", OrderApiIT.ORDER, headers);
        assertEquals(201, r.status(), r.body());
        return r.json().get("id").asText();
    }

    @Test
    void captureWithoutTheHeaderOrNamingAnotherTenantIsNotFoundAndWritesNothing() throws Exception {
        String id = place(TENANT, "tenant-a");

        assertRefusedLikeAnUnknownOrder(id, API.client().post("/orders/" + id + "/capture", CAPTURE));
        assertRefusedLikeAnUnknownOrder(
                id, API.client().post("/orders/" + id + "/capture", CAPTURE, TENANT, "tenant-b"));

        assertUntouched(id);
    }

    @Test
    void cancelWithoutTheHeaderOrNamingAnotherTenantIsNotFoundAndWritesNothing() throws Exception {
        String id = place(TENANT, "tenant-a");

        assertRefusedLikeAnUnknownOrder(id, API.client().post("/orders/" + id + "/cancel", CANCEL));
        assertRefusedLikeAnUnknownOrder(id, API.client().post("/orders/" + id + "/cancel", CANCEL, TENANT, "tenant-b"));

        assertUntouched(id);
    }

    @Test
    void shipWithoutTheHeaderOrNamingAnotherTenantIsNotFoundAndWritesNothing() throws Exception {
        String id = place(TENANT, "tenant-a");
        ApiClient.Reply captured = API.client().post("/orders/" + id + "/capture", CAPTURE, TENANT, "tenant-a");
        assertEquals(200, captured.status(), captured.body());
        String key = UUID.randomUUID().toString();

        assertRefusedLikeAnUnknownOrder(
                id, API.client().post("/orders/" + id + "/ship", SHIP, TENANT, "tenant-b", "Idempotency-Key", key));
        assertRefusedLikeAnUnknownOrder(id, API.client().post("/orders/" + id + "/ship", SHIP, "Idempotency-Key", key));

        assertEquals("CAPTURED", DB.scalar("SELECT status FROM orders WHERE id = ?::uuid", id));
        assertEquals(2L, DB.scalar("SELECT version FROM orders WHERE id = ?::uuid", id));
        assertEquals(
                List.of(List.of("order.created", "tenant-a"), List.of("payment.captured", "tenant-a")),
                eventTenants(id),
                "no order.shipped row");
        assertEquals(0, DB.count("SELECT count(*) FROM idempotency_keys"), "a refused request stores no key");

        // the owner can ship it, so the refusals above were about the tenant, not the request
        ApiClient.Reply shipped = API.client().post("/orders/" + id + "/ship", SHIP, TENANT, "tenant-a");
        assertEquals(200, shipped.status(), shipped.body());
        assertEquals("SHIPPED", shipped.json().get("status").asText());
    }

    @Test
    void readingAnotherTenantsOrderIsNotFound() throws Exception {
        String id = place(TENANT, "tenant-a");

        assertRefusedLikeAnUnknownOrder(id, API.client().get("/orders/" + id, TENANT, "tenant-b"));
        assertRefusedLikeAnUnknownOrder(id, API.client().get("/orders/" + id));
        ApiClient.Reply own = API.client().get("/orders/" + id, TENANT, "tenant-a");
        assertEquals(200, own.status(), own.body());
        assertEquals("tenant-a", own.json().get("tenantId").asText());
    }

    @Test
    void anOrderPlacedWithoutATenantIsNotVisibleToAnyTenant() throws Exception {
        String id = place();

        assertRefusedLikeAnUnknownOrder(id, API.client().get("/orders/" + id, TENANT, "tenant-b"));
        assertRefusedLikeAnUnknownOrder(
                id, API.client().post("/orders/" + id + "/capture", CAPTURE, TENANT, "tenant-b"));
        assertRefusedLikeAnUnknownOrder(id, API.client().post("/orders/" + id + "/cancel", CANCEL, TENANT, "tenant-b"));
        assertUntouched(id);

        ApiClient.Reply captured = API.client().post("/orders/" + id + "/capture", CAPTURE);
        assertEquals(200, captured.status(), captured.body());
        assertEquals(
                List.of(Arrays.asList("order.created", null), Arrays.asList("payment.captured", null)),
                eventTenants(id));
    }

    @Test
    void everyEventCarriesTheOrdersTenant() throws Exception {
        String id = place(TENANT, "tenant-a");

        assertEquals(
                200,
                API.client()
                        .post("/orders/" + id + "/capture", CAPTURE, TENANT, "tenant-a")
                        .status());
        assertEquals(
                200,
                API.client()
                        .post("/orders/" + id + "/cancel", CANCEL, TENANT, "tenant-a")
                        .status());

        assertEquals(
                List.of(
                        List.of("order.created", "tenant-a"),
                        List.of("payment.captured", "tenant-a"),
                        List.of("order.cancelled", "tenant-a"),
                        List.of("payment.refunded", "tenant-a")),
                eventTenants(id));
        JsonNode created = Json.mapper().readTree((String)
                DB.scalar("SELECT payload::text FROM message_outbox WHERE message_type = 'order.created'"));
        assertEquals("tenant-a", created.get("tenantId").asText(), "order.created names the tenant in its body");
        assertEquals("tenant-a", DB.scalar("SELECT tenant_id FROM orders WHERE id = ?::uuid", id));
    }

    @Test
    void anIdempotencyKeyRefusedForAnotherTenantStaysFreeAndNeverReplaysToIt() throws Exception {
        String id = place(TENANT, "tenant-a");
        String key = UUID.randomUUID().toString();

        assertRefusedLikeAnUnknownOrder(
                id,
                API.client().post("/orders/" + id + "/capture", CAPTURE, TENANT, "tenant-b", "Idempotency-Key", key));
        assertEquals(
                0,
                DB.count("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", key),
                "a refused request stores no key");

        ApiClient.Reply owner =
                API.client().post("/orders/" + id + "/capture", CAPTURE, TENANT, "tenant-a", "Idempotency-Key", key);
        assertEquals(200, owner.status(), owner.body());
        assertNull(owner.header("Idempotent-Replayed"), "the key was still free for its owner");
        ApiClient.Reply replay =
                API.client().post("/orders/" + id + "/capture", CAPTURE, TENANT, "tenant-a", "Idempotency-Key", key);
        assertEquals(200, replay.status(), replay.body());
        assertEquals("true", replay.header("Idempotent-Replayed"));

        assertRefusedLikeAnUnknownOrder(
                id,
                API.client().post("/orders/" + id + "/capture", CAPTURE, TENANT, "tenant-b", "Idempotency-Key", key));
        assertRefusedLikeAnUnknownOrder(
                id, API.client().post("/orders/" + id + "/capture", CAPTURE, "Idempotency-Key", key));
        assertEquals(
                List.of(List.of("order.created", "tenant-a"), List.of("payment.captured", "tenant-a")),
                eventTenants(id));
    }

    /** The same problem, byte for byte but the id, as for an order id nobody ever used. */
    private static void assertRefusedLikeAnUnknownOrder(String id, ApiClient.Reply r) throws Exception {
        assertEquals(404, r.status(), r.body());
        assertEquals("application/problem+json", r.header("Content-Type"));
        String unknown = UUID.randomUUID().toString();
        ApiClient.Reply reference = API.client().get("/orders/" + unknown);
        assertEquals(404, reference.status(), reference.body());
        assertEquals(withoutVolatile(reference.body().replace(unknown, id)), withoutVolatile(r.body()));
    }

    /** The request's own correlation id differs between any two responses. */
    private static JsonNode withoutVolatile(String body) throws Exception {
        ObjectNode problem = (ObjectNode) Json.mapper().readTree(body);
        problem.remove("correlationId");
        return problem;
    }

    private static void assertUntouched(String id) {
        assertEquals(
                1,
                DB.count("SELECT count(*) FROM message_outbox WHERE aggregate_id = ?", id),
                "only the order.created row");
        assertEquals("PLACED", DB.scalar("SELECT status FROM orders WHERE id = ?::uuid", id));
        assertEquals(1L, DB.scalar("SELECT version FROM orders WHERE id = ?::uuid", id));
        assertEquals(0, DB.count("SELECT count(*) FROM idempotency_keys"));
    }

    private static List<List<String>> eventTenants(String id) {
        List<List<String>> out = new ArrayList<>();
        for (Map<String, Object> row : DB.rows(
                "SELECT message_type, tenant_id FROM message_outbox"
                        + " WHERE aggregate_id = ? ORDER BY aggregate_version",
                id)) {
            out.add(Arrays.asList((String) row.get("message_type"), (String) row.get("tenant_id")));
        }
        return out;
    }
}
