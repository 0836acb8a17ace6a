package dev.outbox.api;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.relay.RelayLock;
import dev.outbox.testkit.TestDatabase;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code GET /ops/relays} on a real server and database: the relays are real liveness locks
 * ({@link RelayLock}), one held by a live session and one whose session has ended.
 */
class OpsRelaysIT {
    private static final String OPERATOR = "op-secret-" + UUID.randomUUID();
    private static final String READER = "read-secret-" + UUID.randomUUID();
    private static final TestDatabase DB = TestDatabase.get();

    @RegisterExtension
    static final RunningApi API = new RunningApi(DB, "OUTBOX_OPS_TOKEN", OPERATOR, "OUTBOX_OPS_READ_TOKEN", READER);

    private static RelayLock lock(String relayId) {
        return RelayLock.connect(
                DatabaseConfig.of(DB.url(), DB.user(), DB.password(), "ops-relays-it"),
                relayId,
                Duration.ofSeconds(10));
    }

    private static void leased(String relayId, int rows) {
        for (int i = 0; i < rows; i++) {
            DB.update(
                    "INSERT INTO message_outbox (aggregate_type, aggregate_id, message_type, exchange_name,"
                            + " routing_key, payload, status, locked_by, locked_at, lease_token, attempt_count)"
                            + " VALUES ('order', ?, 'order.created', 'orders.events', 'order.created', '{}'::jsonb,"
                            + " 'IN_PROGRESS', ?, now(), nextval('message_outbox_lease_token_seq'), 1)",
                    UUID.randomUUID().toString(),
                    relayId);
        }
    }

    @Test
    void listsEachRelayWithWhetherItIsAliveAndWhatItHolds() throws Exception {
        try (RelayLock live = lock("relay-live")) {
            assertTrue(live.tryAcquire());
            live.recordIncarnation("host-a", 4242, java.time.Instant.parse("2026-11-30T10:00:00Z"));
            try (RelayLock gone = lock("relay-gone")) {
                assertTrue(gone.tryAcquire());
            } // its session ended: the lock is free, as after a SIGKILL
            leased("relay-live", 2);
            leased("relay-gone", 1);

            assertEquals(401, API.client().get("/ops/relays").status());
            ApiClient.Reply reply = API.client().get("/ops/relays", "Authorization", "Bearer " + READER);
            assertEquals(200, reply.status(), reply.body());
            JsonNode body = reply.json();
            assertEquals(1, body.get("live").asLong());
            JsonNode items = body.get("items");
            assertEquals(2, items.size());
            JsonNode gone = items.get(0);
            assertEquals("relay-gone", gone.get("relayId").asText());
            assertFalse(gone.get("alive").asBoolean());
            assertEquals(1, gone.get("inProgress").asLong());
            JsonNode alive = items.get(1);
            assertEquals("relay-live", alive.get("relayId").asText());
            assertTrue(alive.get("alive").asBoolean());
            assertEquals("host-a", alive.get("host").asText());
            assertEquals(4242, alive.get("pid").asLong());
            assertEquals(live.backendPid(), alive.get("databaseBackendPid").asInt());
            assertEquals("2026-11-30T10:00:00Z", alive.get("startedAt").asText());
            assertTrue(alive.hasNonNull("heartbeatAt"));
            assertEquals(2, alive.get("inProgress").asLong());
            assertTrue(alive.hasNonNull("oldestLeaseAt"));
        }
        // the live relay's session ends too; the server drops its lock as the backend exits
        await().atMost(Duration.ofSeconds(10))
                .until(() -> API.client()
                                .get("/ops/relays", "Authorization", "Bearer " + READER)
                                .json()
                                .get("live")
                                .asLong()
                        == 0);
    }
}
