package dev.outbox.relay;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.EndpointConfig;
import dev.outbox.config.HealthReport;
import dev.outbox.config.Lifecycle;
import dev.outbox.config.ProcessEndpoint;
import dev.outbox.config.Settings;
import dev.outbox.kernel.metrics.Metrics;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.FailureDescriptions;
import dev.outbox.messaging.QueueType;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.metrics.OutboxGauges;
import dev.outbox.persistence.metrics.RelayGauges;
import dev.outbox.persistence.ops.OutboxStatsReader;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.persistence.relay.RelayRegistry;
import dev.outbox.persistence.retention.RetentionPolicy;
import dev.outbox.persistence.retention.RetentionRun;
import dev.outbox.persistence.retention.RetentionSchedule;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSessionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The relay process's parts, wired from settings; {@link RelayMain} and the launcher run it. */
public final class RelayApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayApp.class);
    private static final int UNREGISTER_ATTEMPTS = 50;
    private static final Duration UNREGISTER_RETRY = Duration.ofMillis(100);

    private final Database database;
    private final BrokerSession session;
    private final OutboxRelay relay;
    private final ProcessEndpoint endpoint;
    private final RetentionSchedule retention;
    private final PendingListener listener;
    private final RelayLiveness liveness;
    private final CdcRelay cdc;

    private RelayApp(
            Database database,
            BrokerSession session,
            OutboxRelay relay,
            ProcessEndpoint endpoint,
            RetentionSchedule retention,
            PendingListener listener,
            RelayLiveness liveness,
            CdcRelay cdc) {
        this.cdc = cdc;
        this.listener = listener;
        this.liveness = liveness;
        this.database = database;
        this.session = session;
        this.relay = relay;
        this.endpoint = endpoint;
        this.retention = retention;
    }

    public static RelayApp start(Settings settings) {
        RelayConfig config = RelayConfig.from(settings);
        boolean declareTopology = RelayConfig.declareTopology(settings);
        boolean listen = RelayConfig.listen(settings, config.cdcMode());
        RetentionPolicy retentionPolicy = RetentionPolicy.from(settings);
        EndpointConfig http = RelayConfig.endpoint(settings);
        DatabaseConfig databaseConfig = DatabaseConfig.required(
                        settings,
                        "outbox-relay",
                        " (the relay needs the outbox's database; the launcher starts an embedded one when it is"
                                + " unset)")
                .withCustomPlans();
        BrokerConfig brokerConfig = BrokerConfig.required(
                settings,
                "outbox-relay " + config.relayId(),
                " (the launcher starts an embedded broker when it is unset)");
        Database database = Database.start(databaseConfig, DatabaseConfig.migrate(settings));
        Lifecycle started = new Lifecycle("relay start-up");
        try {
            Injector injector = Guice.createInjector(database.module());
            PrometheusMeterRegistry registry = Metrics.registry("outbox-relay");
            BrokerSession session = new BrokerSession(
                    brokerConfig,
                    new ExponentialBackoff(config.reconnectInitial(), config.reconnectMax()),
                    declareTopology ? c -> declareTopology(c, brokerConfig.queueType()) : c -> {});
            RelayStats stats = new RelayStats(registry);
            OutboxRelay relay = new OutboxRelay(config, injector.getInstance(OutboxStore.class), session, stats);
            OutboxGauges.register(registry, injector.getInstance(OutboxStatsReader.class), Duration.ofSeconds(5));
            Gauge.builder("outbox.broker.available", session, s -> s.isAvailable() ? 1 : 0)
                    .description("1 while the relay has a usable broker connection (circuit closed)")
                    .strongReference(true)
                    .register(registry);
            Gauge.builder("outbox.relay.in_flight", relay, OutboxRelay::inFlight)
                    .description("messages sent and not yet confirmed")
                    .strongReference(true)
                    .register(registry);
            RelayRegistry relays = injector.getInstance(RelayRegistry.class);
            RelayGauges.register(registry, relays, Duration.ofSeconds(5));
            LivenessConfig livenessConfig = LivenessConfig.from(settings, databaseConfig.connectTimeout());
            RelayLiveness liveness = null;
            if (livenessConfig.enabled()) {
                liveness = new RelayLiveness(
                        livenessConfig,
                        databaseConfig,
                        config.relayId(),
                        relays,
                        relay.claims(),
                        relay::rowsGivenBack,
                        livenessConfig.reconnectBackoff(),
                        config.backoff().size(),
                        registry);
                // before the relay starts: it claims nothing until it holds its lock and has taken back its rows
                liveness.start();
                started.add("liveness", liveness);
            } else {
                leaveToTheLease(relays, config.relayId(), config.backoff().size());
            }
            session.start();
            started.add("broker session", session);
            relay.start();
            started.onStop("relay", relay::stop);
            CdcRelay cdc = null;
            if (config.cdcMode()) {
                cdc = new CdcRelay(
                        CdcConfig.from(settings),
                        config,
                        databaseConfig,
                        injector.getInstance(dev.outbox.persistence.cdc.CdcStore.class),
                        session,
                        stats);
                registerCdcMetrics(registry, cdc);
                cdc.start();
                started.add("CDC stream", cdc);
            }
            PendingListener listener = null;
            if (listen) {
                listener = new PendingListener(
                        databaseConfig,
                        relay::wakeUp,
                        new ExponentialBackoff(config.reconnectInitial(), config.reconnectMax()));
                FunctionCounter.builder("outbox.relay.notifications", listener, PendingListener::notifications)
                        .description("outbox_pending notifications received (each wakes the idle publishers)")
                        .register(registry);
                FunctionCounter.builder("outbox.relay.listen.connects", listener, PendingListener::connects)
                        .description("successful LISTENs on the notification connection; more than 1 means reconnects")
                        .register(registry);
                for (PendingListener.FailureKind kind : PendingListener.FailureKind.values()) {
                    FunctionCounter.builder("outbox.relay.listen.failures", listener, l -> l.failures(kind))
                            .tag("kind", kind.name().toLowerCase(java.util.Locale.ROOT))
                            .description("times listening for notifications failed and was started again")
                            .register(registry);
                }
                // before the listener's first wake-up, so that wake-up already registers the relay as waiting
                relay.announceWaits();
                listener.start();
                started.add("LISTEN connection", listener);
            }
            ProcessEndpoint endpoint = null;
            if (http.enabled()) {
                RelayLiveness lv = liveness;
                CdcRelay cdcRelay = cdc;
                endpoint = ProcessEndpoint.start(http.host(), http.port(), registry, relay::isRunning, () -> {
                    Map<String, String> checks = new java.util.LinkedHashMap<>();
                    checks.put("database", database.ping());
                    checks.put("broker", session.isAvailable() ? "UP" : "DOWN: " + session.lastError());
                    if (lv != null) {
                        checks.put("liveness", lv.health());
                    }
                    if (cdcRelay != null) {
                        String state = cdcRelay.state();
                        // a standby is healthy: it takes the slot over when the reader's session ends
                        checks.put(
                                "cdc",
                                state.startsWith("reading") || state.startsWith("standby")
                                        ? "UP (" + state + ")"
                                        : "DOWN: " + state);
                    }
                    return HealthReport.of(checks);
                });
                LOG.info("relay metrics and health on http://{}:{}/metrics", http.host(), endpoint.port());
            }
            RetentionSchedule retention = null;
            if (retentionPolicy.enabled()) {
                retention = new RetentionSchedule(
                        "relay",
                        RetentionRun.forProduct(
                                injector.getInstance(DataSource.class), injector.getInstance(SqlSessionFactory.class)),
                        retentionPolicy,
                        registry);
                retention.start();
            }
            LOG.info("relay {}", settings.describe());
            return new RelayApp(database, session, relay, endpoint, retention, listener, liveness, cdc);
        } catch (IOException e) {
            started.close();
            database.close();
            throw new java.io.UncheckedIOException("cannot open the relay's HTTP port " + http.port(), e);
        } catch (RuntimeException e) {
            started.close();
            database.close();
            throw e;
        }
    }

    /**
     * A relay without liveness never holds its lock, so if its id stayed registered (an earlier run
     * with liveness), every peer's sweep would take its in-flight rows for a dead relay's. It leaves
     * the registry before it claims anything, so its rows are recovered by the lease alone.
     */
    private static void leaveToTheLease(RelayRegistry relays, String relayId, int maxAttempts) {
        for (int attempt = 1; ; attempt++) {
            RelayRegistry.Unregistered outcome = relays.unregister(relayId, maxAttempts);
            switch (outcome) {
                case NOT_REGISTERED -> {
                    return;
                }
                case REMOVED -> {
                    LOG.info(
                            "relay {} runs without liveness: removed its id from the relay registry (an earlier run"
                                    + " registered it), so its leases are recovered by the lease alone",
                            relayId);
                    return;
                }
                case LOCK_HELD -> {
                    if (attempt >= UNREGISTER_ATTEMPTS) {
                        throw new ConfigurationException("relay id " + relayId + " is held by a live relay's liveness"
                                + " lock; two live processes must never share OUTBOX_RELAY_ID");
                    }
                    // most likely a peer's sweep giving back this id's old rows, for one short transaction
                    try {
                        Thread.sleep(UNREGISTER_RETRY.toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while leaving the relay registry", e);
                    }
                }
            }
        }
    }

    private static void registerCdcMetrics(PrometheusMeterRegistry registry, CdcRelay cdc) {
        Gauge.builder("outbox.relay.cdc.reading", cdc, c -> c.reading() ? 1 : 0)
                .description("1 while this relay reads the replication slot; 0 on a standby or while reconnecting")
                .strongReference(true)
                .register(registry);
        Gauge.builder("outbox.relay.cdc.slot.lag.bytes", cdc, CdcRelay::lagBytes)
                .description("WAL the server keeps for the relay's slot: written since its confirmed position")
                .strongReference(true)
                .register(registry);
        Gauge.builder("outbox.relay.cdc.lag.seconds", cdc, CdcRelay::lagSeconds)
                .description("age of the newest tick the stream has settled: how far the stream is behind")
                .strongReference(true)
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.rows.streamed", cdc, CdcRelay::streamed)
                .description("inserted outbox rows read from the slot")
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.rows.left.to.retry.path", cdc, CdcRelay::leftToRetryPath)
                .description("streamed rows left PENDING for the polling retry path (held, in doubt, not due)")
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.slots.recreated", cdc, CdcRelay::slotsRecreated)
                .description("times the slot was found invalidated (max_slot_wal_keep_size) and created again")
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.streams.opened", cdc, CdcRelay::streamsOpened)
                .description("streams this relay opened on the slot; growing while it reads means it keeps losing it")
                .register(registry);
        FunctionCounter.builder("outbox.relay.cdc.marks.deferred", cdc, CdcRelay::marksDeferred)
                .description("outcomes written again because the row's commit came through the slot before"
                        + " it was visible to other sessions")
                .register(registry);
    }

    /** The CDC stream, or null in polling mode. */
    public CdcRelay cdc() {
        return cdc;
    }

    /** The port of {@code /metrics} and {@code /health}, or -1 when disabled. */
    public int httpPort() {
        return endpoint == null ? -1 : endpoint.port();
    }

    /**
     * Declares the topology, but a relay whose user may not declare it still runs: publishing is
     * what matters, and each publish is classified on its own (403, 404, 312).
     */
    static void declareTopology(Connection connection, QueueType queueType) throws IOException {
        try (Channel ch = connection.createChannel()) {
            Topology.declare(ch, queueType);
        } catch (IOException e) {
            if (e.getCause() instanceof com.rabbitmq.client.ShutdownSignalException sse && !sse.isHardError()) {
                LOG.error("cannot declare the topology ({}); publishing anyway", FailureDescriptions.describe(sse));
                return;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new IOException("timed out closing the topology channel", e);
        }
    }

    /** The notification listener, or null when {@code OUTBOX_RELAY_LISTEN=false}. */
    PendingListener listener() {
        return listener;
    }

    /** The liveness lock holder, or null when {@code OUTBOX_RELAY_LIVENESS=false}. */
    RelayLiveness liveness() {
        return liveness;
    }

    public OutboxRelay relay() {
        return relay;
    }

    public BrokerSession session() {
        return session;
    }

    @Override
    public void close() {
        try {
            if (retention != null) {
                retention.close();
            }
            if (listener != null) {
                listener.close();
            }
            if (cdc != null) {
                cdc.close();
            }
            relay.stop();
            if (liveness != null) {
                // only now: until the relay has given back or recorded its rows, they stay its own
                liveness.close();
            }
        } finally {
            if (endpoint != null) {
                endpoint.close();
            }
            session.close();
            database.close();
        }
    }
}
