package dev.outbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsTest {
    @Test
    void theStartUpTableListsSetValuesFirstAlignedWithSecretsMasked() {
        Settings s = new Settings(Map.of(
                "OUTBOX_DB_URL", "postgresql://app:hunter2@db:5432/outbox",
                "OUTBOX_OPS_TOKEN", "s3cr3t",
                "OUTBOX_RELAY_BATCH_SIZE", "64"));
        s.optional("OUTBOX_DB_URL");
        s.optional("OUTBOX_OPS_TOKEN");
        s.integer("OUTBOX_RELAY_BATCH_SIZE", 500, 1, 10_000);
        s.integer("OUTBOX_RELAY_PUBLISHERS", 2, 1, 64);
        s.duration("OUTBOX_RELAY_LEASE", Duration.ofMinutes(2), Duration.ofSeconds(1), Duration.ofHours(1));
        String n = System.lineSeparator();
        assertEquals(
                "settings: 3 set, 2 default" + n
                        + "  OUTBOX_DB_URL            postgresql://app:***@db:5432/outbox" + n
                        + "  OUTBOX_OPS_TOKEN         ***" + n
                        + "  OUTBOX_RELAY_BATCH_SIZE  64" + n
                        + "  OUTBOX_RELAY_LEASE       2m  (default)" + n
                        + "  OUTBOX_RELAY_PUBLISHERS  2  (default)",
                s.describe());
    }
}
