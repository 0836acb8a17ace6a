package dev.outbox.relay;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.EndpointConfig;
import dev.outbox.config.HealthReport;
import dev.outbox.config.Lifecycle;
import dev.outbox.config.ProcessEndpoint;
import dev.outbox.config.Settings;
import dev.outbox.config.StopBound;
import dev.outbox.kernel.tracing.Tracing;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.relay.RelayRegistry;
import dev.outbox.persistence.retention.RetentionSchedule;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The relay process's parts, wired from settings; {@link RelayMain} and the launcher run it. */
public final class RelayApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayApp.class);
    private static final int UNREGISTER_ATTEMPTS = 50;
    private static final Duration UNREGISTER_RETRY = Duration.ofMillis(100);

    private final Lifecycle parts;
    private final BrokerSession session;
    private final OutboxRelay relay;
    private final ProcessEndpoint endpoint;
    private final PendingListener listener;
    private final RelayLiveness liveness;
    private final CdcRelay cdc;

    private RelayApp(
            Lifecycle parts,
            BrokerSession session,
            OutboxRelay relay,
            ProcessEndpoint endpoint,
            PendingListener listener,
            RelayLiveness liveness,
            CdcRelay cdc) {
        this.parts = parts;
        this.session = session;
        this.relay = relay;
        this.endpoint = endpoint;
        this.listener = listener;
        this.liveness = liveness;
        this.cdc = cdc;
    }

    /**
     * Builds the parts ({@link RelayModule} over the persistence module) and starts them in order,
     * each recorded in one {@link Lifecycle}: the database, the registry watch (the contracts
     * producers registered), the liveness lock (the relay claims nothing until it holds it and has
     * taken its rows back), the broker session, the relay, the CDC stream, the LISTEN connection,
     * the HTTP endpoint, retention. If one fails to start, the ones before it stop, newest first,
     * and the failure is thrown; {@link #close} stops them the same way.
     */
    public static RelayApp start(Settings settings) {
        RelayModule module = RelayModule.from(settings);
        RelayConfig config = module.config();
        Lifecycle parts = new Lifecycle("relay " + config.relayId());
        try {
            // first started, last stopped: the spans of the last confirms are exported before exit
            module.tracedBy(parts.add("tracing", Tracing.start(module.tracing())));
            Database database =
                    parts.add("database", Database.start(module.database(), DatabaseConfig.migrate(settings)));
            Injector injector = Guice.createInjector(database.module(), module);
            // the registry's contracts before the first claim: the shipped relay has no service's on its classpath
            RegistryWatch registry = injector.getInstance(RegistryWatch.class);
            registry.start();
            parts.add("registry watch", registry);
            RelayLiveness liveness =
                    injector.getInstance(new Key<Optional<RelayLiveness>>() {}).orElse(null);
            if (liveness != null) {
                liveness.start();
                parts.add("liveness", liveness);
            } else {
                leaveToTheLease(
                        injector.getInstance(RelayRegistry.class),
                        config.relayId(),
                        config.backoff().size());
            }
            BrokerSession session = injector.getInstance(BrokerSession.class);
            session.start();
            parts.add("broker session", session);
            OutboxRelay relay = injector.getInstance(OutboxRelay.class);
            relay.start();
            parts.onStop("relay", relay::stop);
            CdcRelay cdc =
                    injector.getInstance(new Key<Optional<CdcRelay>>() {}).orElse(null);
            if (cdc != null) {
                cdc.start();
                parts.add("CDC stream", cdc);
            }
            PendingListener listener = injector.getInstance(new Key<Optional<PendingListener>>() {})
                    .orElse(null);
            if (listener != null) {
                // before the listener's first wake-up, so that wake-up already registers the relay as waiting
                relay.announceWaits();
                listener.start();
                parts.add("LISTEN connection", listener);
            }
            ProcessEndpoint endpoint = null;
            EndpointConfig http = module.http();
            if (http.enabled()) {
                endpoint = parts.add(
                        "HTTP endpoint",
                        startEndpoint(
                                http,
                                injector.getInstance(PrometheusMeterRegistry.class),
                                database,
                                session,
                                relay,
                                liveness,
                                cdc));
                LOG.info("relay metrics and health on http://{}:{}/metrics", http.host(), endpoint.port());
            }
            injector.getInstance(new Key<Optional<RetentionSchedule>>() {}).ifPresent(retention -> {
                retention.start();
                parts.add("retention", retention);
            });
            LOG.info("relay {}", settings.describe());
            LOG.info("{}", stopBound(module));
            return new RelayApp(parts, session, relay, endpoint, listener, liveness, cdc);
        } catch (RuntimeException e) {
            parts.close();
            throw e;
        }
    }

    private static ProcessEndpoint startEndpoint(
            EndpointConfig http,
            PrometheusMeterRegistry registry,
            Database database,
            BrokerSession session,
            OutboxRelay relay,
            RelayLiveness liveness,
            CdcRelay cdc) {
        try {
            return ProcessEndpoint.start(http.host(), http.port(), registry, relay::isRunning, () -> {
                Map<String, String> checks = new java.util.LinkedHashMap<>();
                checks.put("database", database.ping());
                checks.put("broker", session.isAvailable() ? "UP" : "DOWN: " + session.lastError());
                if (liveness != null) {
                    checks.put("liveness", liveness.health());
                }
                if (cdc != null) {
                    String state = cdc.state();
                    // a standby is healthy: it takes the slot over when the reader's session ends
                    checks.put(
                            "cdc",
                            state.startsWith("reading") || state.startsWith("standby")
                                    ? "UP (" + state + ")"
                                    : "DOWN: " + state);
                }
                return HealthReport.of(checks);
            });
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot open the relay's HTTP port " + http.port(), e);
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

    /**
     * The longest the relay takes to stop after SIGTERM, read from the same settings as
     * {@link #start} (it opens nothing): each wait of {@link #close}, newest part first. Retention
     * and the HTTP endpoint stop at once; the relay drains ({@link OutboxRelay#drainBound}), closes
     * its channels (each waits up to the channel RPC timeout for the broker's close-ok), writes the
     * outcomes, withdraws its wait registration (a pooled connection, then one statement a silent
     * server holds up to the socket timeout), and only then releases its liveness lock.
     */
    public static StopBound stopBound(Settings settings) {
        return stopBound(RelayModule.from(settings));
    }

    private static StopBound stopBound(RelayModule module) {
        RelayConfig config = module.config();
        DatabaseConfig database = module.database();
        StopBound bound = StopBound.of("relay " + config.relayId());
        if (module.listens()) {
            bound = bound.then("LISTEN connection", PendingListener.CLOSE_WAIT);
        }
        if (config.cdcMode()) {
            bound = bound.then("CDC stream", CdcRelay.closeBound(config));
        }
        bound = bound.then("publishers and confirms", OutboxRelay.drainBound(config))
                .then("channels", module.broker().rpcTimeout().multipliedBy(config.publishers()))
                .then("outcomes", OutboxRelay.OUTCOME_FLUSH);
        if (module.listens()) {
            bound = bound.then("wait registration", database.connectTimeout().plus(database.socketTimeout()));
        }
        bound = bound.then("broker connection", BrokerSession.closeBound());
        if (module.liveness()) {
            bound = bound.then("liveness lock", RelayLiveness.CLOSE_WAIT.multipliedBy(2));
        }
        bound = bound.then("registry watch", RegistryWatch.CLOSE_WAIT);
        return bound.then("pool", Database.closeBound(database)).thenSpans(module.tracing());
    }

    /** The CDC stream, or null in polling mode. */
    public CdcRelay cdc() {
        return cdc;
    }

    /** The port of {@code /metrics} and {@code /health}, or -1 when disabled. */
    public int httpPort() {
        return endpoint == null ? -1 : endpoint.port();
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

    /**
     * Stops the parts newest first: retention, the endpoint, the LISTEN connection, the CDC stream,
     * the relay (it waits for its in-flight confirms and records them), the broker session, and
     * only then the liveness lock (until the relay has recorded its rows they stay its own), and
     * the database last.
     */
    @Override
    public void close() {
        parts.close();
    }
}
