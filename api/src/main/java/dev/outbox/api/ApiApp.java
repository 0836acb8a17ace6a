package dev.outbox.api;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Module;
import com.google.inject.util.Modules;
import dev.outbox.api.health.HealthResource;
import dev.outbox.api.health.MetricsResource;
import dev.outbox.api.ops.OpsConfig;
import dev.outbox.api.orders.persistence.OrderMapper;
import dev.outbox.config.JulLogging;
import dev.outbox.config.Lifecycle;
import dev.outbox.config.Settings;
import dev.outbox.config.StopBound;
import dev.outbox.config.TracingConfig;
import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.metrics.Metrics;
import dev.outbox.kernel.tracing.Tracing;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.persistence.metrics.OutboxGauges;
import dev.outbox.persistence.metrics.RelayGauges;
import dev.outbox.persistence.ops.OutboxStatsReader;
import dev.outbox.persistence.relay.RelayRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.glassfish.grizzly.http.server.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The API process's parts, wired from settings; {@link ApiMain} and the launcher run it. */
public final class ApiApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ApiApp.class);

    /** The order service's own migrations ({@code orders}, {@code order_lines}), in this jar. */
    public static final String ORDERS_MIGRATIONS = "classpath:db/orders";

    /** Their history, beside the outbox's {@code outbox_schema_history}. */
    public static final String ORDERS_HISTORY_TABLE = "flyway_orders_history";

    private final Lifecycle parts;
    private final HttpServer server;
    private final Injector injector;

    private ApiApp(Lifecycle parts, HttpServer server, Injector injector) {
        this.parts = parts;
        this.server = server;
        this.injector = injector;
    }

    public static ApiApp start(Settings settings) {
        return start(settings, Modules.EMPTY_MODULE);
    }

    /**
     * Starts the API with some bindings replaced. Only the benchmark uses it, to measure the
     * business write without its outbox insert ({@code ops/bench}, HTTP write overhead); a
     * production process always starts through {@link #start(Settings)}.
     */
    public static ApiApp start(Settings settings, Module overrides) {
        JulLogging.route();
        ApiConfig config = ApiConfig.from(settings);
        OpsConfig ops = OpsConfig.from(settings);
        DatabaseConfig databaseConfig = DatabaseConfig.required(
                settings, "outbox-api", " (the launcher starts an embedded database when it is unset)");
        // the parts in the order they start, stopped newest first: the database, then the HTTP server
        TracingConfig tracingConfig = TracingConfig.from(settings, "outbox-api");
        Lifecycle parts = new Lifecycle("API");
        try {
            // first started, last stopped: the spans of the last requests are exported before exit
            Tracing tracing = parts.add("tracing", Tracing.start(tracingConfig));
            boolean migrate = DatabaseConfig.migrate(settings);
            Database database = parts.add("database", Database.start(databaseConfig, migrate));
            if (migrate) {
                // the order service's own tables, after the outbox's, with a history of their own
                database.migrateOwn(ORDERS_MIGRATIONS, ORDERS_HISTORY_TABLE, ApiApp.class.getClassLoader());
            }
            // the order service's contracts, where the relay (started from its own jar) reads them
            new MessageRegistry(database.dataSource())
                    .registerContracts(MessageContracts.onClasspath().all(), "outbox-api");
            Injector injector = Guice.createInjector(Modules.override(
                            database.module(OrderMapper.class),
                            PersistenceModule.tracedBy(tracing.openTelemetry()),
                            new ApiModule(Clock.systemUTC(), config.idempotencyRetention(), ops.relayLease()))
                    .with(overrides));
            PrometheusMeterRegistry registry = Metrics.registry("outbox-api");
            OutboxGauges.register(registry, injector.getInstance(OutboxStatsReader.class), Duration.ofSeconds(5));
            RelayGauges.register(registry, injector.getInstance(RelayRegistry.class), Duration.ofSeconds(5));
            HttpServer server;
            try {
                server = HttpApi.start(
                        injector, config, ops, new MetricsResource(registry), new HealthResource(database));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot listen on port " + config.port(), e);
            }
            parts.onStop("HTTP server", () -> stopGracefully(server));
            if (ops.operatorToken() == null) {
                LOG.warn("OUTBOX_OPS_TOKEN is not set: the /ops repair endpoints answer 503");
            }
            LOG.info("API listening on http://{}:{}/, {}", config.host(), HttpApi.port(server), settings.describe());
            LOG.info("{}", stopBound(settings));
            return new ApiApp(parts, server, injector);
        } catch (RuntimeException e) {
            parts.close();
            throw e;
        }
    }

    /** How long requests in flight may take to finish once the API stops. */
    static final Duration GRACEFUL_STOP = Duration.ofSeconds(10);

    /** How long the stop waits for Grizzly's graceful shutdown before it cuts the connections. */
    static final Duration GRACEFUL_STOP_WAIT = Duration.ofSeconds(15);

    /**
     * The longest the API takes to stop after SIGTERM: the HTTP server's graceful stop, then the
     * pool. Reads the same settings as {@link #start}, and opens nothing.
     */
    public static StopBound stopBound(Settings settings) {
        DatabaseConfig database = DatabaseConfig.required(settings, "outbox-api", "");
        return StopBound.of("API")
                .then("requests in flight", GRACEFUL_STOP_WAIT)
                .then("pool", Database.closeBound(database))
                .thenSpans(TracingConfig.from(settings, "outbox-api"));
    }

    /** Finishes the requests in flight ({@link #GRACEFUL_STOP}), then refuses the rest. */
    private static void stopGracefully(HttpServer server) {
        try {
            server.shutdown(GRACEFUL_STOP.toSeconds(), TimeUnit.SECONDS)
                    .get(GRACEFUL_STOP_WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.warn("HTTP server did not stop gracefully: {}", e.toString());
            server.shutdownNow();
        }
    }

    public int port() {
        return HttpApi.port(server);
    }

    public Injector injector() {
        return injector;
    }

    /** Finishes the requests in flight, then releases the database. */
    @Override
    public void close() {
        parts.close();
        LOG.info("API stopped");
    }
}
