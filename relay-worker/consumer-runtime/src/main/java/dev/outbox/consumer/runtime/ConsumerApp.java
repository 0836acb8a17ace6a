package dev.outbox.consumer.runtime;

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
import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.tracing.Tracing;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.persistence.retention.RetentionSchedule;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process around any consumer: database (migrated, MyBatis-Guice with the consumer's
 * mappers), broker session with reconnects, the topology declared on every connect, the
 * transactional dedupe runner around the registered handler, metrics and {@code /health/ready}
 * (ready only while the database answers and every consumer channel is subscribed), all started
 * and stopped through one {@link Lifecycle}. Every delivery is checked against the wire contract
 * of the queue ({@link WireContract#forQueue}) before the handler sees it. A consumer brings a
 * {@link ConsumerRegistration} and its handler; it copies none of this.
 */
public final class ConsumerApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerApp.class);

    /**
     * Starts the retention of the consumer's own tables, the last part to start. Package-private
     * so a test can make it fail and see every part started before it stopped.
     */
    @FunctionalInterface
    interface RetentionStart {
        AutoCloseable start(RetentionSchedule schedule);
    }

    private static final RetentionStart START_RETENTION = schedule -> {
        schedule.start();
        return schedule;
    };

    private final ConsumerRegistration registration;
    private final Lifecycle started;
    private final ConsumerRunner runner;
    private final ProcessEndpoint endpoint;

    private ConsumerApp(
            ConsumerRegistration registration, Lifecycle started, ConsumerRunner runner, ProcessEndpoint endpoint) {
        this.registration = registration;
        this.started = started;
        this.runner = runner;
        this.endpoint = endpoint;
    }

    public static ConsumerApp start(Settings settings, ConsumerRegistration registration) {
        return start(settings, registration, START_RETENTION);
    }

    public ConsumerRegistration registration() {
        return registration;
    }

    /**
     * Builds the parts ({@link ConsumerModule} over the persistence module with the consumer's
     * mappers) and starts them in order (database, broker session and runner, HTTP endpoint, retention),
     * each recorded in one {@link Lifecycle}: if a later part fails to start, the earlier ones are
     * stopped, newest first, and the failure is thrown; {@link #close} stops them the same way.
     */
    static ConsumerApp start(Settings settings, ConsumerRegistration registration, RetentionStart startRetention) {
        String name = registration.name();
        ConsumerModule module = new ConsumerModule(settings, registration);
        Lifecycle started = new Lifecycle(name + " consumer");
        boolean migrate = DatabaseConfig.migrate(settings);
        // first started, last stopped: the spans of the last deliveries are exported before exit
        Tracing tracing = started.add("tracing", Tracing.start(module.tracing()));
        try {
            Database database = started.add("database", Database.start(module.database(), migrate));
            if (migrate && registration.migrations().isPresent()) {
                // the consumer's own tables, history in flyway_<name>_history, from the consumer's jar
                database.migrateOwn(
                        registration.migrations().get(),
                        registration.migrationHistoryTable(),
                        registration.handler().getClassLoader());
            }
            // its queue, as its topology file declares it, where the relay reads the consumers' topology
            new MessageRegistry(database.dataSource())
                    .registerQueue(
                            BrokerTopology.onClasspath()
                                    .document(registration.queue())
                                    .orElseThrow(() -> new IllegalStateException(
                                            "no topology/" + registration.queue() + ".queue.json on the classpath")),
                            name);
            // the persistence module binds the clock handlers get (UTC)
            Injector injector = Guice.createInjector(
                    database.module(registration.mappers().toArray(Class<?>[]::new)),
                    PersistenceModule.tracedBy(tracing.openTelemetry()),
                    module);
            ConsumerRunner runner = injector.getInstance(ConsumerRunner.class);
            runner.tracedBy(new DeliverySpans(tracing.openTelemetry(), name, registration.queue()));
            BrokerSession session = injector.getInstance(BrokerSession.class);
            session.start();
            started.add("broker session", session);
            // stopped before the session: its channels close while the connection is still there
            started.add("consumer runner", runner);
            ProcessEndpoint endpoint = null;
            EndpointConfig http = module.http();
            if (http.enabled()) {
                try {
                    endpoint = started.add(
                            "HTTP endpoint",
                            ProcessEndpoint.start(
                                    http.host(),
                                    http.port(),
                                    injector.getInstance(PrometheusMeterRegistry.class),
                                    () -> true,
                                    () -> readiness(database, session, runner)));
                } catch (IOException e) {
                    throw new UncheckedIOException(
                            "cannot open the " + name + " consumer's HTTP port " + http.port(), e);
                }
                LOG.info("{} consumer metrics and health on http://{}:{}/metrics", name, http.host(), endpoint.port());
            }
            injector.getInstance(new Key<Optional<RetentionSchedule>>() {})
                    .ifPresent(retention -> started.add("retention", startRetention.start(retention)));
            LOG.info("{}", stopBound(module, name));
            LOG.info(
                    "{} consumer started on {} (prefetch {}, {} channel(s)); it accepts {}",
                    name,
                    registration.queue(),
                    module.consumer().prefetch(),
                    module.consumer().channels(),
                    module.contract().describe());
            return new ConsumerApp(registration, started, runner, endpoint);
        } catch (RuntimeException | Error e) {
            LOG.error("{} consumer failed to start; stopping the {} part(s) already started", name, started.size());
            started.close();
            throw e;
        }
    }

    /**
     * The longest the consumer takes to stop after SIGTERM, read from the same settings as
     * {@link #start} (it opens nothing): its channels close one after the other, each waiting up
     * to the channel RPC timeout for the broker's close-ok (the broker requeues what was delivered
     * and not acked: a handler still running commits or not, and a redelivery is deduplicated), then
     * the broker connection, then the pool. Retention and the HTTP endpoint stop at once.
     */
    public static StopBound stopBound(Settings settings, ConsumerRegistration registration) {
        return stopBound(new ConsumerModule(settings, registration), registration.name());
    }

    private static StopBound stopBound(ConsumerModule module, String name) {
        return StopBound.of(name + " consumer")
                .then(
                        "channels",
                        module.broker()
                                .rpcTimeout()
                                .multipliedBy(module.consumer().channels()))
                .then("broker connection", BrokerSession.closeBound())
                .then("pool", Database.closeBound(module.database()))
                .thenSpans(module.tracing());
    }

    /**
     * A consumer that applies in aggregate order must see every versioned message of the
     * aggregate, or it holds each one for a version it never receives (found here: a consumer of
     * {@code order.shipped} alone held every message for {@code v1}).
     */
    static void requireEveryTypeOfAnOrderedAggregate(ConsumerRegistration registration, WireContract contract) {
        if (registration.ordering() != ConsumerRegistration.Ordering.AGGREGATE_ORDER) {
            return;
        }
        Map<String, java.util.List<String>> missing = contract.partlyBoundOrderedAggregates();
        if (!missing.isEmpty()) {
            throw new ConfigurationException("consumer " + registration.name() + " applies in aggregate order, but "
                    + registration.queue() + " does not bind every message type of " + missing.keySet()
                    + " (it misses " + missing + "): bind them all in its topology file, or register it"
                    + " asDelivered()");
        }
    }

    /**
     * On a quorum queue the broker dead-letters a message delivered {@code x-delivery-limit}
     * times, without the consumer's reason: the consumer must give up first.
     */
    static void requireAttemptsBelowTheDeliveryLimit(
            String prefix, String queue, ConsumerSettings consumer, BrokerConfig broker) {
        OptionalLong limit = Topology.deliveryLimitOf(queue, broker.queueType());
        if (limit.isPresent() && consumer.maxAttempts() >= limit.getAsLong()) {
            throw new ConfigurationException("OUTBOX_" + prefix + "_MAX_ATTEMPTS " + consumer.maxAttempts()
                    + " must be below the delivery limit " + limit.getAsLong() + " of the quorum queue " + queue
                    + " (deliveryLimit in its topology file), or the broker dead-letters a failing message before the"
                    + " consumer gives up on it");
        }
    }

    private static HealthReport readiness(Database database, BrokerSession session, ConsumerRunner runner) {
        String consumer = runner.isConsuming()
                ? "UP"
                : "DOWN: " + runner.consumingChannels() + " of "
                        + runner.settings().channels() + " channel(s) consuming "
                        + runner.settings().queue();
        return HealthReport.of(Map.of(
                "database",
                database.ping(),
                "broker",
                session.isAvailable() ? "UP" : "DOWN: " + session.lastError(),
                "consumer",
                consumer));
    }

    /** The port of {@code /metrics} and {@code /health}, or -1 when disabled. */
    public int httpPort() {
        return endpoint == null ? -1 : endpoint.port();
    }

    public ConsumerRunner runner() {
        return runner;
    }

    @Override
    public void close() {
        started.close();
        LOG.info(
                "{} consumer stopped: applied={} (+{} held, applied later) duplicates={} stale={} failures={}"
                        + " dead-lettered={} contract-violations={}",
                registration.name(),
                runner.stats().applied(),
                runner.stats().heldApplied(),
                runner.stats().duplicates(),
                runner.stats().stale(),
                runner.stats().failures(),
                runner.stats().deadLettered(),
                runner.stats().contractViolations());
    }
}
