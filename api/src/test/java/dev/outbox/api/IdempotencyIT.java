package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.testkit.TestDatabase;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Idempotency-Key on every POST: client retries never create a second order (seed 002). */
class IdempotencyIT {
    private static final TestDatabase DB = TestDatabase.get();

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB);

    private static long count(String table) {
        return DB.count("SELECT count(*) FROM " + table);
    }

    @Test
    void aRepeatReturnsTheStoredResponseAndWritesNothing() throws Exception {
        String key = UUID.randomUUID().toString();
        ApiClient.Reply first = API.client().post("/orders", OrderApiIT.ORDER, "Idempotency-Key", key);
        assertEquals(201, first.status(), first.body());
        assertNull(first.header("Idempotent-Replayed"));

        // the same request, formatted differently and with keys in another order, is the same request
        String reordered = "{ \"lines\" : [{\"unitPrice\":\"10.00\",\"quantity\":2,\"sku\":\"SKU-1\"},"
                + "{\"sku\":\"SKU-2\",\"quantity\":1,\"unitPrice\":\"22.50\"}], \"currency\":\"EUR\","
                + " \"customerId\":\"cust-1\" }";
        ApiClient.Reply again = API.client().post("/orders", reordered, "Idempotency-Key", key);
        assertEquals(201, again.status());
        assertEquals(first.body(), again.body(), "byte for byte the first response");
        assertEquals(first.header("Location"), again.header("Location"));
        assertEquals("true", again.header("Idempotent-Replayed"));
        assertEquals(1, count("orders"));
        assertEquals(1, count("message_outbox"));
    }

    @Test
    void theSameKeyWithADifferentBodyIsUnprocessable() throws Exception {
        String key = UUID.randomUUID().toString();
        assertEquals(
                201,
                API.client()
                        .post("/orders", OrderApiIT.ORDER, "Idempotency-Key", key)
                        .status());
        ApiClient.Reply other =
                API.client().post("/orders", OrderApiIT.ORDER.replace("cust-1", "cust-2"), "Idempotency-Key", key);
        assertEquals(422, other.status(), other.body());
        assertEquals("idempotency_key_reused", other.json().get("code").asText());
        assertEquals(1, count("orders"));
    }

    @Test
    void theSameKeyOnAnotherEndpointIsUnprocessable() throws Exception {
        String key = UUID.randomUUID().toString();
        String id = API.client()
                .post("/orders", OrderApiIT.ORDER, "Idempotency-Key", key)
                .json()
                .get("id")
                .asText();
        ApiClient.Reply capture =
                API.client().post("/orders/" + id + "/capture", "{\"amount\":\"42.50\"}", "Idempotency-Key", key);
        assertEquals(422, capture.status(), capture.body());
        assertEquals("PLACED", DB.scalar("SELECT status FROM orders"));
    }

    @Test
    void aRetriedCaptureIsAppliedOnceAndAnsweredTwice() throws Exception {
        String id =
                API.client().post("/orders", OrderApiIT.ORDER).json().get("id").asText();
        String key = UUID.randomUUID().toString();
        ApiClient.Reply first =
                API.client().post("/orders/" + id + "/capture", "{\"amount\":\"42.50\"}", "Idempotency-Key", key);
        ApiClient.Reply retry =
                API.client().post("/orders/" + id + "/capture", "{\"amount\":\"42.50\"}", "Idempotency-Key", key);
        assertEquals(200, first.status());
        assertEquals(200, retry.status(), "a retry is not a second capture (that would be 409)");
        assertEquals(first.body(), retry.body());
        assertEquals(1, DB.count("SELECT count(*) FROM message_outbox WHERE message_type = 'payment.captured'"));
    }

    @Test
    void aRejectedRequestStoresNoKeySoTheRetryIsJudgedAfresh() throws Exception {
        String key = UUID.randomUUID().toString();
        String bad = "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[]}";
        assertEquals(
                400, API.client().post("/orders", bad, "Idempotency-Key", key).status());
        assertEquals(0, count("idempotency_keys"));
        assertEquals(
                400, API.client().post("/orders", bad, "Idempotency-Key", key).status());
    }

    @Test
    void keysAreScopedByTenant() throws Exception {
        String key = UUID.randomUUID().toString();
        assertEquals(
                201,
                API.client()
                        .post("/orders", OrderApiIT.ORDER, "Idempotency-Key", key, "X-Tenant-Id", "t1")
                        .status());
        ApiClient.Reply other =
                API.client().post("/orders", OrderApiIT.ORDER, "Idempotency-Key", key, "X-Tenant-Id", "t2");
        assertEquals(201, other.status());
        assertNull(other.header("Idempotent-Replayed"));
        assertEquals(2, count("orders"));
    }

    @Test
    void anExpiredKeyMayBeUsedAgain() throws Exception {
        String key = UUID.randomUUID().toString();
        assertEquals(
                201,
                API.client()
                        .post("/orders", OrderApiIT.ORDER, "Idempotency-Key", key)
                        .status());
        DB.update("UPDATE idempotency_keys SET created_at = now() - interval '2 days', expires_at = now() - interval"
                + " '1 day'");
        ApiClient.Reply fresh =
                API.client().post("/orders", OrderApiIT.ORDER.replace("cust-1", "cust-3"), "Idempotency-Key", key);
        assertEquals(201, fresh.status(), fresh.body());
        assertEquals(2, count("orders"));
    }

    @Test
    void twentyConcurrentRequestsWithOneKeyMakeOneOrderAndOneOutboxRow() throws Exception {
        String key = UUID.randomUUID().toString();
        int n = 20;
        CyclicBarrier go = new CyclicBarrier(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<Future<ApiClient.Reply>> replies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Callable<ApiClient.Reply> call = () -> {
                ApiClient own = new ApiClient(API.port());
                go.await();
                return own.post("/orders", OrderApiIT.ORDER, "Idempotency-Key", key);
            };
            replies.add(pool.submit(call));
        }
        Set<String> ids = new HashSet<>();
        int replayed = 0;
        for (Future<ApiClient.Reply> f : replies) {
            ApiClient.Reply r = f.get();
            assertEquals(201, r.status(), r.body());
            ids.add(r.json().get("id").asText());
            if ("true".equals(r.header("Idempotent-Replayed"))) {
                replayed++;
            }
        }
        pool.shutdown();
        assertEquals(1, ids.size(), "every caller got the same order");
        assertEquals(n - 1, replayed);
        assertEquals(1, count("orders"));
        assertEquals(1, count("message_outbox"));
        assertTrue(count("idempotency_keys") == 1);
    }
}
