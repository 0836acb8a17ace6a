package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The request body limit: 1 MiB unless {@code OUTBOX_HTTP_MAX_BODY} says otherwise, and a bad value stops start-up. */
class ApiConfigTest {
    @Test
    void theBodyLimitIsOneMebibyteByDefaultAndConfigurable() {
        assertEquals(1024 * 1024, ApiConfig.from(new Settings(Map.of())).maxBodyBytes());
        assertEquals(
                256 * 1024,
                ApiConfig.from(new Settings(Map.of("OUTBOX_HTTP_MAX_BODY", "256KiB")))
                        .maxBodyBytes());
        assertEquals(
                5000,
                ApiConfig.from(new Settings(Map.of("OUTBOX_HTTP_MAX_BODY", "5000")))
                        .maxBodyBytes());
    }

    @Test
    void aBadBodyLimitNamesTheVariableAndWhatItTakes() {
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> ApiConfig.from(new Settings(Map.of("OUTBOX_HTTP_MAX_BODY", "lots"))));
        assertEquals(
                "OUTBOX_HTTP_MAX_BODY=lots: must be a size such as 1048576, 512KiB or 1MiB, between 1KiB and 64MiB",
                e.getMessage());
        assertThrows(
                ConfigurationException.class,
                () -> ApiConfig.from(new Settings(Map.of("OUTBOX_HTTP_MAX_BODY", "100MiB"))));
    }
}
