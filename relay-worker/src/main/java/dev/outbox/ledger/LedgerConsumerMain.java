package dev.outbox.ledger;

import dev.outbox.config.ProcessMain;
import dev.outbox.config.Settings;

/** The ledger consumer process; exits 0 on SIGTERM after closing its channels, 2 if it cannot start. */
public final class LedgerConsumerMain {
    private LedgerConsumerMain() {}

    public static void main(String[] args) {
        ProcessMain.run("ledger consumer", () -> LedgerConsumer.start(Settings.fromEnvironment()));
    }
}
