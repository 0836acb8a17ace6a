package dev.outbox.relay;

import com.google.inject.AbstractModule;
import com.google.inject.Provider;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.outbox.config.EndpointConfig;
import dev.outbox.config.Settings;
import dev.outbox.config.TracingConfig;
import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.kernel.metrics.Metrics;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.tracing.Tracing;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.publish.PublishSpans;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.cdc.CdcStore;
import dev.outbox.persistence.metrics.OutboxGauges;
import dev.outbox.persistence.metrics.RelayGauges;
import dev.outbox.persistence.ops.OutboxStatsReader;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.persistence.relay.RelayLock;
import dev.outbox.persistence.relay.RelayRegistry;
import dev.outbox.persistence.retention.RetentionPolicy;
import dev.outbox.persistence.retention.RetentionRun;
import dev.outbox.persistence.retention.RetentionSchedule;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * The relay's parts, each built once from the settings and the persistence module: the broker
 * session, the polling relay, and the parts a setting may leave out (liveness, the CDC stream, the
 * LISTEN connection, retention), each with its metrics. {@link RelayApp} starts them in order and
 * stops them in reverse; building them starts nothing.
 */
final class RelayModule extends AbstractModule {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RelayModule.class);
    private final Settings settings;
    private final RelayConfig config;
    private final DatabaseConfig database;
    private final BrokerConfig broker;
    private final boolean declareTopology;
    private final boolean listen;
    private final RetentionPolicy retention;
    private final EndpointConfig http;
    private final TracingConfig tracing;
    private PublishSpans spans = PublishSpans.OFF;
    private final LivenessConfig liveness;

    private RelayModule(Settings settings) {
        this.settings = settings;
        this.config = RelayConfig.from(settings);
        this.declareTopology = RelayConfig.declareTopology(settings);
        this.listen = RelayConfig.listen(settings, config.cdcMode());
        this.retention = RetentionPolicy.from(settings);
        this.http = RelayConfig.endpoint(settings);
        this.tracing = TracingConfig.from(settings, "outbox-relay");
        this.database = DatabaseConfig.required(
                        settings,
                        "outbox-relay",
                        " (the relay needs the outbox's database; the launcher starts an embedded one when it is"
                                + " unset)")
                .withCustomPlans();
        this.broker = BrokerConfig.required(
                settings,
                "outbox-relay " + config.relayId(),
                " (the launcher starts an embedded broker when it is unset)");
        this.liveness = LivenessConfig.from(settings, database.connectTimeout());
    }

    /** Reads every setting the relay has: a bad one stops start-up before anything is opened. */
    static RelayModule from(Settings settings) {
        return new RelayModule(settings);
    }

    RelayConfig config() {
        return config;
    }

    DatabaseConfig database() {
        return database;
    }

    EndpointConfig http() {
        return http;
    }

    TracingConfig tracing() {
        return tracing;
    }

    /** Every publish of this relay a span of {@code tracing} (set before the parts are built). */
    RelayModule tracedBy(Tracing started) {
        this.spans = new PublishSpans(started.openTelemetry());
        return this;
    }

    BrokerConfig broker() {
        return broker;
    }

    /** Whether the relay LISTENs for commits on a connection of its own. */
    boolean listens() {
        return listen;
    }

    /** Whether the relay holds a liveness lock on a connection of its own. */
    boolean liveness() {
        return liveness.enabled();
    }

    @Override
    protected void configure() {
        bind(RelayConfig.class).toInstance(config);
        bind(BrokerConfig.class).toInstance(broker);
    }

    @Provides
    @Singleton
    PrometheusMeterRegistry registry() {
        return Metrics.registry("outbox-relay");
    }

    /** What the relay declares on each connection and on each registry change. */
    @Provides
    @Singleton
    RelayTopology topology(PrometheusMeterRegistry registry) {
        RelayTopology topology =
                new RelayTopology(broker.queueType(), config.contracts().current());
        FunctionCounter.builder("outbox.relay.topology.refused", topology, RelayTopology::refused)
                .description("exchanges and queues the broker refused to declare (406), or registered ones the"
                        + " relay could not read; publishing goes on")
                .register(registry);
        return topology;
    }

    @Provides
    @Singleton
    BrokerSession session(PrometheusMeterRegistry registry, RelayTopology topology, Provider<RegistryWatch> watch) {
        BrokerSession session = new BrokerSession(
                broker,
                new ExponentialBackoff(config.reconnectInitial(), config.reconnectMax()),
                declareTopology
                        ? connection -> {
                            topology.declare(connection);
                            // what this declaration re-made routes the rows parked for want of it:
                            // the watch looks now, not at its next poll
                            watch.get().changed();
                        }
                        : c -> {});
        Gauge.builder("outbox.broker.available", session, s -> s.isAvailable() ? 1 : 0)
                .description("1 while the relay has a usable broker connection (circuit closed)")
                .strongReference(true)
                .register(registry);
        return session;
    }

    @Provides
    @Singleton
    RelayStats stats(PrometheusMeterRegistry registry) {
        return new RelayStats(registry);
    }

    @Provides
    @Singleton
    OutboxRelay relay(
            OutboxStore store,
            BrokerSession session,
            RelayStats stats,
            OutboxStatsReader reader,
            RelayRegistry relays,
            PrometheusMeterRegistry registry) {
        OutboxRelay relay = new OutboxRelay(config, store, session, stats, spans);
        OutboxGauges.register(registry, reader, Duration.ofSeconds(5));
        Gauge.builder("outbox.relay.in_flight", relay, OutboxRelay::inFlight)
                .description("messages sent and not yet confirmed")
                .strongReference(true)
                .register(registry);
        RelayGauges.register(registry, relays, Duration.ofSeconds(5));
        return relay;
    }

    /** Empty with {@code OUTBOX_RELAY_LIVENESS=false}: the lease alone recovers a dead relay's rows. */
    @Provides
    @Singleton
    Optional<RelayLiveness> liveness(RelayRegistry relays, OutboxRelay relay, PrometheusMeterRegistry registry) {
        if (!liveness.enabled()) {
            return Optional.empty();
        }
        return Optional.of(new RelayLiveness(
                liveness,
                () -> RelayLock.connect(database, config.relayId(), liveness.silentHostTimeout()),
                config.relayId(),
                relays,
                relay.claims(),
                relay::rowsGivenBack,
                liveness.reconnectBackoff(),
                config.backoff().size(),
                registry));
    }

    /** Empty in polling mode. */
    @Provides
    @Singleton
    Optional<CdcRelay> cdc(CdcStore store, BrokerSession session, RelayStats stats, PrometheusMeterRegistry registry) {
        if (!config.cdcMode()) {
            return Optional.empty();
        }
        CdcRelay cdc = new CdcRelay(CdcConfig.from(settings), config, database, store, session, stats, spans);
        CdcMetrics.register(registry, cdc);
        return Optional.of(cdc);
    }

    /** The registry's contracts kept in {@link RelayConfig#contracts}, for every part that checks rows. */
    @Provides
    @Singleton
    RegistryWatch registryWatch(
            DataSource dataSource,
            OutboxStore store,
            RelayTopology topology,
            Provider<BrokerSession> session,
            PrometheusMeterRegistry registry) {
        RegistryWatch watch = new RegistryWatch(
                new MessageRegistry(dataSource),
                config.contracts(),
                RelayConfig.registryPoll(settings),
                types -> store.retryParked(ErrorCode.CONTRACT_UNKNOWN, types),
                declareTopology
                        ? declaring(topology, session, routable(topology, store, registry))
                        : RegistryWatch.TopologyHook.NONE);
        Gauge.builder("outbox.relay.registry.contracts", config.contracts(), RelayContracts::registered)
                .description("message contracts registered in the database that the relay checks rows against")
                .strongReference(true)
                .register(registry);
        Gauge.builder("outbox.relay.registry.unusable", config.contracts(), RelayContracts::unusable)
                .description("registered contracts the relay cannot use (see its log); their types go unchecked")
                .strongReference(true)
                .register(registry);
        FunctionCounter.builder("outbox.relay.registry.reloads", watch, RegistryWatch::reloads)
                .description("times the relay read a changed registry, the read at start included")
                .register(registry);
        FunctionCounter.builder("outbox.relay.registry.retried", watch, RegistryWatch::retried)
                .description("rows parked CONTRACT_UNKNOWN the relay made due again once their type was registered")
                .register(registry);
        FunctionCounter.builder("outbox.relay.registry.failures", watch, RegistryWatch::failures)
                .description("looks at the registry that failed; the relay kept what it knew")
                .register(registry);
        return watch;
    }

    /**
     * The registry's topology made current at each change, and declared at the next look on the
     * live connection while it is behind: a change that came with no connection (or while the
     * connection's own declaration read the topology before it) is declared as soon as one is there.
     */
    private static RoutableAgain routable(RelayTopology topology, OutboxStore store, PrometheusMeterRegistry registry) {
        RoutableAgain routable = new RoutableAgain(topology::declared, store::retryRoutable);
        FunctionCounter.builder("outbox.relay.topology.retried", routable, RoutableAgain::retried)
                .description("rows parked EXCHANGE_NOT_FOUND or UNROUTABLE the relay made due again once it had"
                        + " declared the exchange or binding that routes them")
                .register(registry);
        FunctionCounter.builder("outbox.relay.topology.retry.failures", routable, RoutableAgain::failures)
                .description("looks for rows the relay's declarations route that failed; the next look tries again")
                .register(registry);
        return routable;
    }

    private static RegistryWatch.TopologyHook declaring(
            RelayTopology topology, Provider<BrokerSession> session, RoutableAgain routable) {
        return new RegistryWatch.TopologyHook() {
            @Override
            public void changed(
                    dev.outbox.kernel.contract.MessageContracts contracts,
                    java.util.List<MessageRegistry.RegisteredQueue> queues) {
                topology.apply(contracts, queues);
            }

            @Override
            public void look() {
                com.rabbitmq.client.Connection connection = session.get().connection();
                if (topology.behind() && connection != null) {
                    try {
                        topology.declare(connection);
                    } catch (java.io.IOException | com.rabbitmq.client.AlreadyClosedException e) {
                        LOG.warn(
                                "could not declare the registry's topology now ({}); trying again at the next look",
                                e.getMessage());
                    }
                }
                // after any declaration, this look's or a connection's: what it routes goes out now
                routable.look();
            }
        };
    }

    /** Empty with {@code OUTBOX_RELAY_LISTEN=false} (and by default in CDC mode). */
    @Provides
    @Singleton
    Optional<PendingListener> listener(OutboxRelay relay, RegistryWatch watch, PrometheusMeterRegistry registry) {
        if (!listen) {
            return Optional.empty();
        }
        PendingListener listener = new PendingListener(
                database,
                relay::wakeUp,
                watch::changed,
                new ExponentialBackoff(config.reconnectInitial(), config.reconnectMax()));
        FunctionCounter.builder("outbox.relay.notifications", listener, PendingListener::notifications)
                .description("outbox_pending notifications received (each wakes the idle publishers)")
                .register(registry);
        FunctionCounter.builder("outbox.relay.listen.connects", listener, PendingListener::connects)
                .description("successful LISTENs on the notification connection; more than 1 means reconnects")
                .register(registry);
        for (PendingListener.FailureKind kind : PendingListener.FailureKind.values()) {
            FunctionCounter.builder("outbox.relay.listen.failures", listener, l -> l.failures(kind))
                    .tag("kind", kind.name().toLowerCase(Locale.ROOT))
                    .description("times listening for notifications failed and was started again")
                    .register(registry);
        }
        return Optional.of(listener);
    }

    /** Empty with {@code OUTBOX_RETENTION_ENABLED=false}. */
    @Provides
    @Singleton
    Optional<RetentionSchedule> retention(
            DataSource dataSource, SqlSessionFactory sessions, PrometheusMeterRegistry registry) {
        if (!retention.enabled()) {
            return Optional.empty();
        }
        return Optional.of(
                new RetentionSchedule("relay", RetentionRun.forProduct(dataSource, sessions), retention, registry));
    }
}
