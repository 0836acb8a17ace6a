package dev.outbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void sizesAreBytesOrBinaryUnitsAndABadOneNamesTheVariableAndTheRange() {
        long mib = 1024 * 1024;
        for (Map.Entry<String, Long> ok : Map.of(
                        "1048576", mib,
                        "512KiB", 512 * 1024L,
                        "512k", 512 * 1024L,
                        "2MiB", 2 * mib,
                        "2 MB", 2 * mib,
                        "1gib", 1024 * mib)
                .entrySet()) {
            assertEquals(
                    ok.getValue(),
                    new Settings(Map.of("OUTBOX_HTTP_MAX_BODY", ok.getKey()))
                            .bytes("OUTBOX_HTTP_MAX_BODY", mib, 1024, 1024 * mib),
                    ok.getKey());
        }
        Settings unset = new Settings(Map.of());
        assertEquals(mib, unset.bytes("OUTBOX_HTTP_MAX_BODY", mib, 1024, 64 * mib));
        assertTrue(unset.describe().contains("OUTBOX_HTTP_MAX_BODY  1MiB  (default)"), unset.describe());

        for (String bad : new String[] {"abc", "-1", "1.5MiB", "1TiB", "10", "65MiB", "99999999999999999999"}) {
            ConfigurationException e = assertThrows(
                    ConfigurationException.class,
                    () -> new Settings(Map.of("OUTBOX_HTTP_MAX_BODY", bad))
                            .bytes("OUTBOX_HTTP_MAX_BODY", mib, 1024, 64 * mib),
                    bad);
            assertTrue(e.getMessage().startsWith("OUTBOX_HTTP_MAX_BODY=" + bad + ": must be"), e.getMessage());
            assertTrue(e.getMessage().endsWith("between 1KiB and 64MiB"), e.getMessage());
        }
    }
}
