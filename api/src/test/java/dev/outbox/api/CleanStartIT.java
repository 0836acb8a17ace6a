package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.outbox.config.Settings;
import dev.outbox.testkit.TestDatabase;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A correctly configured API starts without a single WARN or ERROR line: an operator reads every
 * warning at start-up as a fault, so the ones that mean nothing must not be printed at all.
 */
class CleanStartIT {
    @Test
    void aCorrectlyConfiguredApiStartsWithoutWarningsAndServesEveryResource() throws Exception {
        Map<String, String> env = new HashMap<>(TestDatabase.get().env());
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        env.put("OUTBOX_OPS_TOKEN", "operator-token");

        // an earlier test's server may still be shutting down: Grizzly's shutdown thread logs a WARN
        // (GRIZZLY0030) of its own, which is not this start's; wait until those threads are done
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().contains("-Shutdown-Thread")) {
                t.join(java.time.Duration.ofSeconds(15).toMillis());
            }
        }
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        root.addAppender(captured);
        ApiApp app;
        try {
            app = ApiApp.start(new Settings(env));
        } finally {
            root.detachAppender(captured);
        }
        try (app) {
            List<ILoggingEvent> events = List.copyOf(captured.list);
            assertTrue(
                    events.stream().anyMatch(e -> e.getFormattedMessage().startsWith("API listening on")),
                    "the capture sees the start-up log at all: " + describe(events));
            List<ILoggingEvent> warnings = events.stream()
                    .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                    .toList();
            assertEquals(
                    List.of(),
                    warnings.stream().map(CleanStartIT::line).toList(),
                    "a clean start logs no WARN or ERROR");

            // the registration that starts silently must still serve every resource
            ApiClient client = new ApiClient(app.port());
            assertEquals(400, client.get("/orders/not-a-uuid").status(), "orders");
            assertEquals(
                    200,
                    client.get("/ops/outbox/stats", "Authorization", "Bearer operator-token")
                            .status(),
                    "ops");
            assertEquals(200, client.get("/health/live").status(), "health");
            assertEquals(200, client.get("/metrics").status(), "metrics");
        }
    }

    private static String line(ILoggingEvent e) {
        return e.getLevel() + " " + e.getLoggerName() + " - " + e.getFormattedMessage();
    }

    private static String describe(List<ILoggingEvent> events) {
        return events.stream().map(CleanStartIT::line).toList().toString();
    }
}
