package dev.outbox.api;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.ProcessSignals;
import dev.outbox.config.Settings;
import dev.outbox.persistence.DataAccessException;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The API process; exits 0 after a clean stop on SIGTERM, 2 when it cannot start. */
public final class ApiMain {
    private static final Logger LOG = LoggerFactory.getLogger(ApiMain.class);

    private ApiMain() {}

    public static void main(String[] args) throws InterruptedException {
        ProcessSignals signals = ProcessSignals.install();
        ApiApp app;
        try {
            app = ApiApp.start(Settings.fromEnvironment());
        } catch (ConfigurationException | DataAccessException | UncheckedIOException e) {
            LOG.error("API cannot start: {}", e.getMessage());
            System.exit(2);
            return;
        }
        LOG.info("{} received: stopping the API", signals.await());
        app.close();
        System.exit(0);
    }
}
