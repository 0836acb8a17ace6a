package dev.outbox.ledger;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.ProcessSignals;
import dev.outbox.config.Settings;
import dev.outbox.persistence.DataAccessException;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The ledger consumer process; exits 0 on SIGTERM after closing its channels, 2 if it cannot start. */
public final class LedgerConsumerMain {
    private static final Logger LOG = LoggerFactory.getLogger(LedgerConsumerMain.class);

    private LedgerConsumerMain() {}

    public static void main(String[] args) throws InterruptedException {
        ProcessSignals signals = ProcessSignals.install();
        LedgerConsumerApp app;
        try {
            app = LedgerConsumerApp.start(Settings.fromEnvironment());
        } catch (ConfigurationException | DataAccessException | UncheckedIOException e) {
            LOG.error("ledger consumer cannot start: {}", e.getMessage());
            System.exit(2);
            return;
        }
        LOG.info("{} received: stopping the ledger consumer", signals.await());
        app.close();
        System.exit(0);
    }
}
