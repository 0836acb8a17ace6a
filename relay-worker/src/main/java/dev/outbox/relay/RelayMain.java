package dev.outbox.relay;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.ProcessSignals;
import dev.outbox.config.Settings;
import dev.outbox.persistence.DataAccessException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay-worker process. Exit codes: 0 after a clean stop on SIGTERM/SIGINT, 2 when it cannot
 * start (bad configuration, database unreachable within {@code OUTBOX_STARTUP_WAIT}).
 */
public final class RelayMain {
    private static final Logger LOG = LoggerFactory.getLogger(RelayMain.class);

    private RelayMain() {}

    public static void main(String[] args) throws InterruptedException {
        ProcessSignals signals = ProcessSignals.install();
        RelayApp app;
        try {
            app = RelayApp.start(Settings.fromEnvironment());
        } catch (ConfigurationException | DataAccessException e) {
            LOG.error("relay cannot start: {}", e.getMessage());
            System.exit(2);
            return;
        }
        LOG.info(
                "relay {} running (pid {}); stop it with SIGTERM",
                app.relay().config().relayId(),
                ProcessHandle.current().pid());
        String signal = signals.await();
        LOG.info("{} received: stopping the relay", signal);
        app.close();
        LOG.info("relay exited cleanly");
        System.exit(0);
    }
}
