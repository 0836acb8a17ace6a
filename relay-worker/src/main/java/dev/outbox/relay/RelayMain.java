package dev.outbox.relay;

import dev.outbox.config.ProcessMain;
import dev.outbox.config.Settings;

/**
 * The relay-worker process. Exit codes: 0 after a clean stop on SIGTERM/SIGINT, 2 when it cannot
 * start (bad configuration, database unreachable within {@code OUTBOX_STARTUP_WAIT}).
 */
public final class RelayMain {
    private RelayMain() {}

    public static void main(String[] args) {
        ProcessMain.run(
                "relay",
                () -> RelayApp.start(Settings.fromEnvironment()),
                app -> "relay " + app.relay().config().relayId());
    }
}
