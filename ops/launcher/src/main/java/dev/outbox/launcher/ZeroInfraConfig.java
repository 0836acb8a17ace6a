package dev.outbox.launcher;

import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import java.nio.file.Path;

/**
 * Zero-infra mode: where the embedded PostgreSQL and broker the launcher starts (when
 * {@code OUTBOX_DB_URL} or {@code OUTBOX_AMQP_URI} is unset) keep their data, and their ports.
 *
 * @param dataDir the data directory, absolute
 * @param databasePort the embedded PostgreSQL's port, {@code 0} any free one
 * @param brokerPort the embedded broker's port, {@code 0} any free one
 */
record ZeroInfraConfig(Path dataDir, int databasePort, int brokerPort) {
    static final Setting<String> DATA_DIR = Setting.text(
            "OUTBOX_DATA_DIR",
            ".outbox-data",
            "zero-infra mode: where the embedded database and broker keep their data (it survives a restart)");
    static final Setting<Integer> EMBEDDED_DB_PORT = Setting.integer(
            "OUTBOX_EMBEDDED_DB_PORT", 0, 0, 65_535, "zero-infra mode: a fixed port for the embedded PostgreSQL");
    static final Setting<Integer> EMBEDDED_AMQP_PORT = Setting.integer(
            "OUTBOX_EMBEDDED_AMQP_PORT", 0, 0, 65_535, "zero-infra mode: a fixed port for the embedded broker");

    static ZeroInfraConfig from(Settings settings) {
        return new ZeroInfraConfig(
                Path.of(settings.get(DATA_DIR)).toAbsolutePath(),
                settings.get(EMBEDDED_DB_PORT),
                settings.get(EMBEDDED_AMQP_PORT));
    }
}
