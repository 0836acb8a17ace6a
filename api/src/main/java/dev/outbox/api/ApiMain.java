package dev.outbox.api;

import dev.outbox.config.ProcessMain;
import dev.outbox.config.Settings;

/** The API process; exits 0 after a clean stop on SIGTERM, 2 when it cannot start. */
public final class ApiMain {
    private ApiMain() {}

    public static void main(String[] args) {
        ProcessMain.run("API", () -> ApiApp.start(Settings.fromEnvironment()));
    }
}
