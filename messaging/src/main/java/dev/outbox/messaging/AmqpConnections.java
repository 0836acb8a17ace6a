package dev.outbox.messaging;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * Builds connection factories the same way for the relay, consumers and tools. Automatic
 * recovery is off on purpose: publisher sequence numbers restart on a new channel, so the relay
 * must know when a connection was replaced and account for every in-flight message itself.
 */
public final class AmqpConnections {
    private AmqpConnections() {}

    public static ConnectionFactory factory(BrokerConfig config) {
        ConnectionFactory f = new ConnectionFactory();
        try {
            f.setUri(config.firstNodeUri());
        } catch (Exception e) {
            throw new dev.outbox.config.ConfigurationException("OUTBOX_AMQP_URI " + config.safeUri()
                    + " is not usable: " + e.getClass().getSimpleName());
        }
        f.setAutomaticRecoveryEnabled(false);
        f.setTopologyRecoveryEnabled(false);
        f.setRequestedHeartbeat((int) Math.max(1, config.heartbeat().toSeconds()));
        f.setConnectionTimeout((int) config.connectTimeout().toMillis());
        f.setHandshakeTimeout((int) Math.max(config.connectTimeout().toMillis(), 1_000));
        f.setShutdownTimeout(2_000);
        f.setChannelRpcTimeout((int) config.rpcTimeout().toMillis());
        return f;
    }

    /**
     * Opens a connection to one of the configured nodes, trying them in a new random order each
     * time: processes spread over a cluster, and after a node dies the next attempt goes elsewhere.
     * The connection's {@code getAddress()} says which node it reached.
     */
    public static Connection open(BrokerConfig config) throws IOException, TimeoutException {
        List<Address> nodes = new ArrayList<>(config.addresses());
        Collections.shuffle(nodes);
        return factory(config).newConnection(nodes, config.connectionName());
    }
}
