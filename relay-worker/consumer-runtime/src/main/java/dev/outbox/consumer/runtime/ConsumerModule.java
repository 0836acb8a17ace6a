package dev.outbox.consumer.runtime;

import com.google.inject.AbstractModule;
import com.google.inject.Injector;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.rabbitmq.client.Channel;
import dev.outbox.config.EndpointConfig;
import dev.outbox.config.Settings;
import dev.outbox.config.TracingConfig;
import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.kernel.metrics.Metrics;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.retention.RetentionPolicy;
import dev.outbox.persistence.retention.RetentionRun;
import dev.outbox.persistence.retention.RetentionSchedule;
import dev.outbox.persistence.retention.RetentionTarget;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSessionFactory;

/**
 * One consumer's parts, built from the settings, its registration and the persistence module
 * (with the consumer's mappers): the runner around its handler, the broker session that declares
 * the topology and starts the runner on every connection, and the retention of its own tables
 * when the registration names any. {@link ConsumerApp} starts them in order; building them starts
 * nothing. Every setting is read, and the registration checked against the wire contract, before
 * anything is opened.
 */
final class ConsumerModule extends AbstractModule {
    private final ConsumerRegistration registration;
    private final DatabaseConfig database;
    private final BrokerConfig broker;
    private final ConsumerSettings consumer;
    private final EndpointConfig http;
    private final RetentionPolicy retention;
    private final WireContract contract;
    private final TracingConfig tracing;

    ConsumerModule(Settings settings, ConsumerRegistration registration) {
        this.registration = registration;
        String name = registration.name();
        String prefix = registration.settingsPrefix();
        this.database = DatabaseConfig.required(settings, "outbox-" + name, "");
        this.broker = BrokerConfig.required(settings, "outbox-" + name, "");
        this.consumer = ConsumerSettings.from(settings, prefix, name, registration.queue());
        this.http = ConsumerSettings.endpoint(settings, prefix, registration.defaultHttpPort());
        this.retention = RetentionPolicy.from(settings);
        this.tracing = TracingConfig.from(settings, "outbox-" + name);
        ConsumerApp.requireAttemptsBelowTheDeliveryLimit(prefix, registration.queue(), consumer, broker);
        this.contract = WireContract.forQueue(registration.queue());
        ConsumerApp.requireEveryTypeOfAnOrderedAggregate(registration, contract);
    }

    DatabaseConfig database() {
        return database;
    }

    EndpointConfig http() {
        return http;
    }

    BrokerConfig broker() {
        return broker;
    }

    ConsumerSettings consumer() {
        return consumer;
    }

    WireContract contract() {
        return contract;
    }

    TracingConfig tracing() {
        return tracing;
    }

    @Override
    protected void configure() {}

    @Provides
    @Singleton
    PrometheusMeterRegistry registry() {
        return Metrics.registry("outbox-" + registration.name());
    }

    @Provides
    @Singleton
    ConsumerRunner runner(
            Injector injector,
            IdempotentProcessor processor,
            FailureCounter failures,
            PrometheusMeterRegistry registry) {
        ConsumerRunner runner = ConsumerRunner.transactional(
                consumer,
                contract,
                processor,
                injector.getInstance(registration.handler()),
                failures,
                registration.ordering() == ConsumerRegistration.Ordering.AGGREGATE_ORDER);
        runner.bindTo(registry);
        return runner;
    }

    @Provides
    @Singleton
    BrokerSession session(ConsumerRunner runner, PrometheusMeterRegistry registry) {
        BrokerSession session = new BrokerSession(
                broker,
                // capped at 10 s: once a partition heals, consuming resumes within it
                new ExponentialBackoff(Duration.ofMillis(500), Duration.ofSeconds(10)),
                connection -> {
                    try (Channel ch = connection.createChannel()) {
                        Topology.declare(ch, broker.queueType());
                    } catch (TimeoutException e) {
                        throw new java.io.IOException(e);
                    }
                    runner.start(connection);
                });
        Gauge.builder("outbox.broker.available", session, s -> s.isAvailable() ? 1 : 0)
                .description("1 while the consumer has a usable broker connection")
                .strongReference(true)
                .register(registry);
        return session;
    }

    /** Empty unless retention is on and the registration names tables of its own. */
    @Provides
    @Singleton
    Optional<RetentionSchedule> retention(
            DataSource dataSource, SqlSessionFactory sessions, PrometheusMeterRegistry registry) {
        if (!retention.enabled() || registration.retention().isEmpty()) {
            return Optional.empty();
        }
        String name = registration.name();
        return Optional.of(new RetentionSchedule(
                name,
                new RetentionRun(
                        dataSource,
                        sessions,
                        RetentionRun.lockKeyFor(name),
                        registration.retention().stream()
                                .<RetentionTarget<?>>map(RetentionTarget::of)
                                .toList()),
                retention,
                registry));
    }
}
