package dev.outbox.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import org.apache.qpid.server.SystemLauncher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An AMQP 0-9-1 broker in this JVM (Apache Qpid Broker-J) for zero-infra mode and for tests
 * without a RabbitMQ: persistent (a Derby message store and a JSON configuration under the work
 * directory), listening on loopback only, user {@code guest}/{@code guest}, the default virtual
 * host answering {@code /}. It speaks AMQP 0-9-1 but is not RabbitMQ: an unroutable
 * {@code mandatory} message gets a return followed by a nack (RabbitMQ: an ack), and RabbitMQ-only
 * queue arguments are refused. The product relies on neither.
 */
public final class EmbeddedBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedBroker.class);

    private final SystemLauncher launcher;
    private final int port;
    private final Path workDir;

    private EmbeddedBroker(SystemLauncher launcher, int port, Path workDir) {
        this.launcher = launcher;
        this.port = port;
        this.workDir = workDir;
    }

    /**
     * Starts the broker with its state in {@code workDir} (kept across restarts).
     *
     * @param port the AMQP port, or 0 for any free one
     */
    public static EmbeddedBroker start(Path workDir, int port) throws Exception {
        Files.createDirectories(workDir);
        int actualPort = port == 0 ? freePort() : port;
        Path initialConfig = workDir.resolve("initial-config.json");
        try (InputStream in = EmbeddedBroker.class.getResourceAsStream("qpid-initial-config.json")) {
            Files.copy(in, initialConfig, StandardCopyOption.REPLACE_EXISTING);
        }
        Map<String, Object> context = new HashMap<>();
        context.put("qpid.work_dir", workDir.toAbsolutePath().toString());
        context.put("qpid.amqp_port", String.valueOf(actualPort));
        // keep the broker's own logging out of the way: our logback configuration decides
        context.put("qpid.broker.defaultPreferenceStoreAttributes", "{\"type\": \"Noop\"}");
        Map<String, Object> attributes = new HashMap<>();
        attributes.put("type", "JSON");
        attributes.put(
                "storePath", workDir.resolve("config.json").toAbsolutePath().toString());
        attributes.put("initialConfigurationLocation", initialConfig.toUri().toString());
        attributes.put("startupLoggedToSystemOut", false);
        attributes.put("context", context);
        SystemLauncher launcher = new SystemLauncher();
        long started = System.nanoTime();
        launcher.startup(attributes);
        LOG.info(
                "embedded AMQP broker (Qpid Broker-J) on amqp://127.0.0.1:{}/ in {} ms, data in {}",
                actualPort,
                (System.nanoTime() - started) / 1_000_000,
                workDir.toAbsolutePath());
        return new EmbeddedBroker(launcher, actualPort, workDir);
    }

    public int port() {
        return port;
    }

    public Path workDir() {
        return workDir;
    }

    /** The URI clients use: guest/guest on the default virtual host. */
    public String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port + "/%2F";
    }

    @Override
    public void close() {
        launcher.shutdown();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }
}
