package dev.outbox.launcher;

import com.rabbitmq.client.Connection;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import dev.outbox.embedded.EmbeddedBroker;
import dev.outbox.embedded.EmbeddedDatabase;
import dev.outbox.messaging.AmqpConnections;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.persistence.DatabaseConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Zero-infra mode: what is not configured is started here. Without {@code OUTBOX_DB_URL} an
 * embedded PostgreSQL (real binaries), without {@code OUTBOX_AMQP_URI} an embedded AMQP 0-9-1
 * broker, both keeping their data in {@code OUTBOX_DATA_DIR} (default {@code .outbox-data} in the
 * working directory) across restarts. A configured URL always wins, and is never silently
 * replaced: a configured broker that does not answer within {@code OUTBOX_STARTUP_WAIT} stops
 * start-up with an error (the database's own start-up wait does the same for the database).
 */
public final class ZeroInfra implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ZeroInfra.class);

    private final EmbeddedDatabase database;
    private final EmbeddedBroker broker;
    private final Map<String, String> overrides;

    private ZeroInfra(EmbeddedDatabase database, EmbeddedBroker broker, Map<String, String> overrides) {
        this.database = database;
        this.broker = broker;
        this.overrides = Map.copyOf(overrides);
    }

    public static ZeroInfra startMissing(Settings settings) throws Exception {
        ZeroInfraConfig config = ZeroInfraConfig.from(settings);
        Path dataDir = config.dataDir();
        Map<String, String> overrides = new LinkedHashMap<>();
        EmbeddedDatabase database = null;
        EmbeddedBroker broker = null;
        try {
            if (DatabaseConfig.url(settings).isEmpty()) {
                database = EmbeddedDatabase.start(dataDir.resolve("postgres"), config.databasePort());
                overrides.put("OUTBOX_DB_URL", database.jdbcUrl());
                overrides.put("OUTBOX_DB_USER", database.user());
            }
            String amqp = BrokerConfig.uri(settings).orElse(null);
            if (amqp == null) {
                broker = EmbeddedBroker.start(dataDir.resolve("broker"), config.brokerPort());
                overrides.put("OUTBOX_AMQP_URI", broker.uri());
            } else {
                requireReachable(
                        BrokerConfig.from(settings, amqp, "outbox-launcher-check"),
                        DatabaseConfig.startupWait(settings));
            }
            return new ZeroInfra(database, broker, overrides);
        } catch (Exception e) {
            if (broker != null) {
                broker.close();
            }
            if (database != null) {
                database.close();
            }
            throw e;
        }
    }

    /** The settings to hand to the components: embedded URLs where nothing was configured. */
    public Map<String, String> overrides() {
        return overrides;
    }

    /** Lines for the start-up banner: what was started here and how to reach it. */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        if (database != null) {
            lines.add("    embedded PostgreSQL " + database.jdbcUrl() + " (user postgres, no password)");
            lines.add("              " + database.psql() + "   data: " + database.dataDir());
        }
        if (broker != null) {
            lines.add("    embedded AMQP broker " + Settings.maskUri(broker.uri()) + " (Qpid Broker-J, guest/guest)"
                    + "   data: " + broker.workDir());
        }
        return lines;
    }

    public boolean active() {
        return database != null || broker != null;
    }

    private static void requireReachable(BrokerConfig config, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        Exception last;
        do {
            try (Connection c = AmqpConnections.open(config)) {
                return;
            } catch (Exception e) {
                last = e;
                LOG.warn("configured broker {} not reachable yet: {}", config.safeUri(), e.toString());
            }
            Thread.sleep(500);
        } while (System.nanoTime() < deadline);
        throw new ConfigurationException("OUTBOX_AMQP_URI " + config.safeUri() + " is set but the broker did not answer"
                + " within " + wait.toSeconds() + " s (" + last.getClass().getSimpleName() + "). Fix the URI, start the"
                + " broker, or unset OUTBOX_AMQP_URI to use the embedded one.");
    }

    @Override
    public void close() throws Exception {
        if (broker != null) {
            broker.close();
        }
        if (database != null) {
            database.close();
        }
    }
}
