package dev.outbox.testkit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * The AMQP 0-9-1 broker every integration test in this JVM shares. Tests observe what the relay
 * sent through {@link #bindQueue}: a fresh, server-named, exclusive queue bound to the exchange,
 * so tests never depend on the state of the product's own queues.
 */
public final class TestBroker {
    private static TestBroker instance;

    private final BrokerEndpoint endpoint;
    private Connection connection;

    private TestBroker(BrokerEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    public static synchronized TestBroker get() {
        if (instance == null) {
            instance = new TestBroker(BrokerEndpoint.get());
        }
        return instance;
    }

    /**
     * A broker other than the tests' own, e.g. a node of {@code ops/cluster.sh}'s cluster for the
     * benchmark's quorum-queue run: a RabbitMQ this host's {@code rabbitmqctl} does not administer
     * by default.
     */
    public static TestBroker at(String uri, String source) {
        return new TestBroker(new BrokerEndpoint(uri, source, true, false));
    }

    public String uri() {
        return endpoint.uri();
    }

    public String source() {
        return endpoint.source();
    }

    /** True for a real RabbitMQ (not the embedded Qpid broker). */
    public boolean isRabbitMq() {
        return endpoint.rabbitMq();
    }

    /** True when the broker runs on this host, so that rabbitmqctl administers it. */
    public boolean hasLocalRabbitmqctl() {
        return endpoint.localRabbitmqctl();
    }

    public String host() {
        return URI.create(uri()).getHost();
    }

    public int port() {
        int port = URI.create(uri()).getPort();
        return port == -1 ? 5672 : port;
    }

    /** The same URI with another host and port: used to route a process through a proxy. */
    public String uriVia(String host, int port) {
        URI u = URI.create(uri());
        String userInfo = u.getRawUserInfo() == null ? "" : u.getRawUserInfo() + "@";
        // raw parts, concatenated: the multi-argument URI constructors would encode %2F a second time
        return u.getScheme() + "://" + userInfo + host + ":" + port + (u.getRawPath() == null ? "" : u.getRawPath())
                + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
    }

    /** The same URI with other credentials. */
    public String uriAs(String user, String password) {
        URI u = URI.create(uri());
        return u.getScheme() + "://" + user + ":" + password + "@" + u.getHost() + ":" + port() + u.getRawPath();
    }

    public Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("OUTBOX_AMQP_URI", uri());
        return env;
    }

    public ConnectionFactory connectionFactory() {
        ConnectionFactory f = new ConnectionFactory();
        try {
            f.setUri(uri());
        } catch (Exception e) {
            throw new IllegalStateException("bad AMQP URI " + TestInfrastructure.mask(uri()), e);
        }
        f.setAutomaticRecoveryEnabled(false);
        f.setConnectionTimeout(5_000);
        return f;
    }

    /** A connection kept for test helpers; reopened if a test closed it. */
    public synchronized Connection connection() {
        try {
            if (connection == null || !connection.isOpen()) {
                connection = connectionFactory().newConnection("testkit");
            }
            return connection;
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException("cannot connect to the test broker " + TestInfrastructure.mask(uri()), e);
        }
    }

    /** Runs broker commands on a fresh channel, closed afterwards. */
    public void withChannel(ChannelAction action) {
        try (Channel ch = connection().createChannel()) {
            action.run(ch);
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    @FunctionalInterface
    public interface ChannelAction {
        void run(Channel channel) throws IOException;
    }

    /** Declares a durable topic exchange (idempotent). */
    public void declareTopicExchange(String exchange) {
        withChannel(ch -> ch.exchangeDeclare(exchange, "topic", true));
    }

    /** Deletes a queue if it exists (RabbitMQ ignores a missing one, Qpid answers 404: both are fine). */
    public void deleteQueue(String queue) {
        ignoringNotFound(ch -> ch.queueDelete(queue));
    }

    /** Deletes an exchange if it exists. */
    public void deleteExchange(String exchange) {
        ignoringNotFound(ch -> ch.exchangeDelete(exchange));
    }

    /** Runs {@code action} on a channel of its own; a 404 (no such queue or exchange) is no error. */
    private void ignoringNotFound(ChannelAction action) {
        try (Channel ch = connection().createChannel()) {
            action.run(ch);
        } catch (IOException e) {
            if (!(e.getCause() instanceof com.rabbitmq.client.ShutdownSignalException sse)
                    || !(sse.getReason() instanceof AMQP.Channel.Close close)
                    || close.getReplyCode() != 404) {
                throw new IllegalStateException(e);
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException(e);
        } catch (com.rabbitmq.client.AlreadyClosedException e) {
            // closing a channel the broker already closed after the 404
        }
    }

    /** Removes every message from a queue if it exists. */
    public void purgeIfExists(String queue) {
        // a passive declare of a missing queue closes the channel with 404: nothing to purge
        ignoringNotFound(ch -> {
            ch.queueDeclarePassive(queue);
            ch.queuePurge(queue);
        });
    }

    /** Messages waiting in a queue, or -1 when it does not exist. */
    public long messageCount(String queue) {
        try (Channel ch = connection().createChannel()) {
            return ch.queueDeclarePassive(queue).getMessageCount();
        } catch (IOException e) {
            return -1;
        } catch (TimeoutException e) {
            throw new IllegalStateException(e);
        } catch (com.rabbitmq.client.AlreadyClosedException e) {
            return -1;
        }
    }

    /**
     * A new server-named exclusive queue bound to {@code exchange} with the routing keys, that
     * records every delivery. Close it at the end of the test.
     */
    public RecordingQueue bindQueue(String exchange, String... routingKeys) {
        return RecordingQueue.open(connection(), exchange, routingKeys);
    }

    /** One delivery as recorded by a {@link RecordingQueue}. */
    public record Received(Delivery delivery) {
        public String messageId() {
            return delivery.getProperties().getMessageId();
        }

        public String body() {
            return new String(delivery.getBody(), java.nio.charset.StandardCharsets.UTF_8);
        }

        public Object header(String name) {
            Map<String, Object> h = delivery.getProperties().getHeaders();
            Object v = h == null ? null : h.get(name);
            return v == null ? null : (v instanceof com.rabbitmq.client.LongString ls ? ls.toString() : v);
        }
    }
}
