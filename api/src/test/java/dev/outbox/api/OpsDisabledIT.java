package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.testkit.TestDatabase;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Without OUTBOX_OPS_TOKEN the repair endpoints say why they are off; the public API is unaffected. */
class OpsDisabledIT {
    @Test
    void withoutAnOperatorTokenOpsAnswers503AndSaysWhy() throws Exception {
        TestDatabase db = TestDatabase.get();
        Map<String, String> env = new HashMap<>(db.env());
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        try (ApiApp app = ApiApp.start(new Settings(env))) {
            ApiClient client = new ApiClient(app.port());
            ApiClient.Reply r = client.get("/ops/outbox/stats", "Authorization", "Bearer anything");
            assertEquals(503, r.status());
            assertEquals("ops_disabled", r.json().get("code").asText());
            assertTrue(r.json().get("detail").asText().contains("OUTBOX_OPS_TOKEN"));
            assertEquals(
                    503,
                    client.post("/ops/outbox/" + java.util.UUID.randomUUID() + "/retry", "{}")
                            .status());
            assertEquals(
                    404, client.get("/orders/" + java.util.UUID.randomUUID()).status(), "public API still up");
        }
    }
}
