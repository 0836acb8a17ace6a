package dev.outbox.relay;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.FailureDescriptions;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.outbox.OutboxStore;
import java.io.IOException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The relay process's parts, wired from settings; {@link RelayMain} and the launcher run it. */
public final class RelayApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RelayApp.class);

    private final Database database;
    private final BrokerSession session;
    private final OutboxRelay relay;

    private RelayApp(Database database, BrokerSession session, OutboxRelay relay) {
        this.database = database;
        this.session = session;
        this.relay = relay;
    }

    public static RelayApp start(Settings settings) {
        RelayConfig config = RelayConfig.from(settings);
        String dbUrl = settings.optional("OUTBOX_DB_URL").orElseThrow(() -> new ConfigurationException(
                "OUTBOX_DB_URL is not set (the relay needs the outbox's database; the launcher starts an embedded"
                        + " one when it is unset)"));
        String amqpUri = settings.optional("OUTBOX_AMQP_URI").orElseThrow(() -> new ConfigurationException(
                "OUTBOX_AMQP_URI is not set (the launcher starts an embedded broker when it is unset)"));
        boolean declareTopology = settings.bool("OUTBOX_RELAY_DECLARE_TOPOLOGY", true);
        Database database = Database.start(DatabaseConfig.from(settings, dbUrl, "outbox-relay"),
                settings.bool("OUTBOX_DB_MIGRATE", true));
        try {
            Injector injector = Guice.createInjector(database.module());
            BrokerSession session = new BrokerSession(
                    BrokerConfig.from(settings, amqpUri, "outbox-relay " + config.relayId()),
                    new ExponentialBackoff(config.reconnectInitial(), config.reconnectMax()),
                    declareTopology ? RelayApp::declareTopology : c -> { });
            OutboxRelay relay = new OutboxRelay(config, injector.getInstance(OutboxStore.class), session,
                    new RelayStats());
            session.start();
            relay.start();
            LOG.info("relay settings: {}", settings.describe());
            return new RelayApp(database, session, relay);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /**
     * Declares the topology, but a relay whose user may not declare it still runs: publishing is
     * what matters, and each publish is classified on its own (403, 404, 312).
     */
    static void declareTopology(Connection connection) throws IOException {
        try (Channel ch = connection.createChannel()) {
            Topology.declare(ch);
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

    public OutboxRelay relay() {
        return relay;
    }

    public BrokerSession session() {
        return session;
    }

    @Override
    public void close() {
        try {
            relay.stop();
        } finally {
            session.close();
            database.close();
        }
    }
}
