package dev.outbox.launcher;

import dev.outbox.api.ApiApp;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Lifecycle;
import dev.outbox.config.LoggingConfig;
import dev.outbox.config.ProcessSignals;
import dev.outbox.config.Settings;
import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.consumer.runtime.ConsumerApp;
import dev.outbox.consumer.runtime.Consumers;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.relay.RelayApp;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the whole system in one JVM: the API, the relay and every consumer on the classpath
 * ({@link Consumers}: the samples under {@code ops/consumers}, which {@code ops/run.sh} puts
 * there), each with its own pool and broker connection exactly as when they run as separate
 * processes. Ctrl-C (SIGINT) or SIGTERM stops them in reverse order: API first (no new writes),
 * then the relay (drains confirms), then the consumers.
 */
public final class Launcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Launcher.class);

    private final Lifecycle started;
    private final ApiApp api;
    private final RelayApp relay;
    private final List<ConsumerApp> consumers;
    private final Settings settings;

    private Launcher(Lifecycle started, ApiApp api, RelayApp relay, List<ConsumerApp> consumers, Settings settings) {
        this.consumers = List.copyOf(consumers);
        this.started = started;
        this.api = api;
        this.relay = relay;
        this.settings = settings;
    }

    public static Launcher start(Settings settings) {
        Lifecycle started = new Lifecycle("launcher");
        try {
            List<ConsumerApp> consumers = new ArrayList<>();
            for (ConsumerRegistration consumer : Consumers.all()) {
                consumers.add(started.add(consumer.name() + " consumer", ConsumerApp.start(settings, consumer)));
            }
            RelayApp relay = started.add("relay", RelayApp.start(settings));
            ApiApp api = started.add("API", ApiApp.start(settings));
            return new Launcher(started, api, relay, consumers, settings);
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
    }

    public ApiApp api() {
        return api;
    }

    public RelayApp relay() {
        return relay;
    }

    /** The consumers it runs, in name order. */
    public List<ConsumerApp> consumers() {
        return consumers;
    }

    /** What to print once everything is up: where things are and something to try. */
    public String banner() {
        return banner(List.of(), -1);
    }

    String banner(List<String> embedded, long startedMillis) {
        String db = DatabaseConfig.url(settings).orElse("?");
        String amqp = Settings.maskUri(BrokerConfig.uri(settings).orElse("?"));
        int port = api.port();
        List<String> lines = new ArrayList<>();
        lines.add("");
        String names =
                consumers.stream().map(c -> c.registration().name()).toList().toString();
        lines.add("  Outbox service is running: API + relay + consumers " + names
                + (startedMillis >= 0 ? " (ready in " + startedMillis + " ms)" : ""));
        lines.add("    API       http://localhost:" + port + "/orders");
        lines.add("    metrics   http://localhost:" + port + "/metrics (API), http://localhost:" + relay.httpPort()
                + "/metrics (relay)"
                + consumers.stream()
                        .filter(c -> c.httpPort() >= 0)
                        .map(c -> ", http://localhost:" + c.httpPort() + "/metrics ("
                                + c.registration().name() + ")")
                        .reduce("", String::concat)
                + "; health at /health/ready on each");
        lines.add("    database  " + db);
        lines.add("    broker    " + amqp);
        lines.addAll(embedded);
        lines.add("  Try it:");
        lines.add("    curl -s -X POST localhost:" + port + "/orders -H 'Content-Type: application/json' \\");
        lines.add("      -d '{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"SKU-1\",\"quantity\":2,"
                + "\"unitPrice\":\"21.25\"}]}'");
        lines.add("    curl -s -X POST localhost:" + port + "/orders/<id>/capture -H 'Content-Type: application/json'"
                + " -d '{\"amount\":\"42.50\"}'");
        lines.add("  then watch the relay publish it and the consumers apply it in the log below.");
        lines.add("  Ctrl-C stops everything.");
        lines.add("");
        return String.join(System.lineSeparator(), lines);
    }

    @Override
    public void close() {
        started.close();
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.fromEnvironment();
        LoggingConfig.checkOrExit("launcher", settings);
        ProcessSignals signals = ProcessSignals.install();
        ZeroInfra infra;
        Launcher launcher;
        try {
            infra = ZeroInfra.startMissing(settings);
        } catch (ConfigurationException e) {
            LOG.error("cannot start: {}", e.getMessage());
            System.exit(2);
            return;
        }
        try {
            launcher = start(settings.with(infra.overrides()));
        } catch (ConfigurationException | DataAccessException | UncheckedIOException e) {
            LOG.error(
                    "cannot start: {}{}",
                    e.getMessage(),
                    e instanceof DataAccessException
                                    && DatabaseConfig.url(settings).isPresent()
                            ? " (OUTBOX_DB_URL is set, so no embedded database is used: fix it or unset it)"
                            : "");
            infra.close();
            System.exit(2);
            return;
        }
        long startedMillis = System.currentTimeMillis()
                - java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
        System.out.println(launcher.banner(infra.describe(), startedMillis));
        LOG.info("{} received: stopping", signals.await());
        launcher.close();
        infra.close();
        LOG.info("stopped cleanly");
        System.exit(0);
    }
}
