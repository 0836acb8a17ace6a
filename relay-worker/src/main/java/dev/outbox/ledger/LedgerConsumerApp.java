package dev.outbox.ledger;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.rabbitmq.client.Channel;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.Topology;
import dev.outbox.messaging.consume.ConsumerRunner;
import dev.outbox.messaging.consume.ConsumerSettings;
import dev.outbox.messaging.consume.FailureCounter;
import dev.outbox.messaging.consume.IdempotentProcessor;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.DatabaseConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sample ledger consumer, a process of its own: consumes {@link Topology#LEDGER_QUEUE} and
 * books captured and refunded payments, exactly once in effect.
 */
public final class LedgerConsumerApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LedgerConsumerApp.class);
    public static final String CONSUMER_NAME = "ledger";

    private final Database database;
    private final BrokerSession session;
    private final ConsumerRunner runner;

    private LedgerConsumerApp(Database database, BrokerSession session, ConsumerRunner runner) {
        this.database = database;
        this.session = session;
        this.runner = runner;
    }

    public static LedgerConsumerApp start(Settings settings) {
        String dbUrl = settings.optional("OUTBOX_DB_URL").orElseThrow(() -> new ConfigurationException(
                "OUTBOX_DB_URL is not set"));
        String amqpUri = settings.optional("OUTBOX_AMQP_URI").orElseThrow(() -> new ConfigurationException(
                "OUTBOX_AMQP_URI is not set"));
        ConsumerSettings consumer = ConsumerSettings.from(settings, "LEDGER", CONSUMER_NAME, Topology.LEDGER_QUEUE);
        Database database = Database.start(DatabaseConfig.from(settings, dbUrl, "outbox-ledger"),
                settings.bool("OUTBOX_DB_MIGRATE", true));
        try {
            Injector injector = Guice.createInjector(database.module(), new AbstractModule() {
                @Override
                protected void configure() {
                    bind(Clock.class).toInstance(Clock.systemUTC());
                }
            });
            ConsumerRunner runner = ConsumerRunner.transactional(consumer,
                    injector.getInstance(IdempotentProcessor.class), injector.getInstance(LedgerHandler.class),
                    injector.getInstance(FailureCounter.class));
            BrokerSession session = new BrokerSession(BrokerConfig.from(settings, amqpUri, "outbox-ledger"),
                    new ExponentialBackoff(Duration.ofMillis(500), Duration.ofSeconds(30)), connection -> {
                        try (Channel ch = connection.createChannel()) {
                            Topology.declare(ch);
                        } catch (TimeoutException e) {
                            throw new java.io.IOException(e);
                        }
                        runner.start(connection);
                    });
            session.start();
            LOG.info("ledger consumer started on {} (prefetch {}, {} channel(s))", Topology.LEDGER_QUEUE,
                    consumer.prefetch(), consumer.channels());
            return new LedgerConsumerApp(database, session, runner);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    public ConsumerRunner runner() {
        return runner;
    }

    @Override
    public void close() {
        runner.close();
        session.close();
        database.close();
        LOG.info("ledger consumer stopped: applied={} (+{} held, applied later) duplicates={} stale={} failures={}"
                + " dead-lettered={}", runner.applied(), runner.heldApplied(), runner.duplicates(), runner.stale(),
                runner.failures(), runner.deadLettered());
    }
}
