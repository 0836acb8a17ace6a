package dev.outbox.chaos;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.outbox.messaging.AmqpConnections;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.QueueType;
import dev.outbox.messaging.Topology;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A witness on the broker: a durable queue of the soak's own, bound to every order event, that
 * counts each message id as it is routed. A copy delivered for the first time (not a redelivery
 * of an unacked one) is a copy the relays published; more than one per id is a duplicate the
 * ledger queue got too and the consumers had to absorb.
 */
final class Observer implements AutoCloseable {
    static final String QUEUE = "chaos.observer";

    final Map<String, Integer> copies = new ConcurrentHashMap<>();
    final AtomicLong redeliveries = new AtomicLong();
    final AtomicLong deliveries = new AtomicLong();
    final AtomicLong lostAcks = new AtomicLong();
    private final Connection connection;

    private Observer(Connection connection) {
        this.connection = connection;
    }

    static Observer start(String amqpUri) throws Exception {
        return start(amqpUri, QueueType.CLASSIC);
    }

    /**
     * {@code amqpUri} may list several nodes; on a cluster ({@code QUORUM}) the observer's own
     * queue is a quorum queue too, so losing a node loses none of its witness copies.
     */
    static Observer start(String amqpUri, QueueType queueType) throws Exception {
        BrokerConfig config = BrokerConfig.of(amqpUri, "chaos-observer").withQueueType(queueType);
        ConnectionFactory f = AmqpConnections.factory(config);
        // the broker restarts and connections are closed during the soak: come back with the consumer
        f.setAutomaticRecoveryEnabled(true);
        f.setTopologyRecoveryEnabled(true);
        f.setNetworkRecoveryInterval(1_000);
        Connection c = f.newConnection(config.addresses(), "chaos-observer");
        Observer o = new Observer(c);
        Channel ch = c.createChannel();
        Topology.declare(ch, queueType);
        ch.queueDeclare(
                QUEUE,
                true,
                false,
                false,
                queueType == QueueType.CLASSIC ? Map.of() : Map.of("x-queue-type", queueType.argument()));
        ch.queueBind(QUEUE, Topology.ORDERS_EXCHANGE, "#");
        ch.basicQos(500);
        ch.basicConsume(QUEUE, false, "chaos-observer", new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                    throws IOException {
                o.deliveries.incrementAndGet();
                String id = properties.getMessageId() == null ? "<none>" : properties.getMessageId();
                if (envelope.isRedeliver()) {
                    o.redeliveries.incrementAndGet();
                    o.copies.putIfAbsent(id, 1);
                } else {
                    o.copies.merge(id, 1, Integer::sum);
                }
                try {
                    getChannel().basicAck(envelope.getDeliveryTag(), false);
                } catch (com.rabbitmq.client.AlreadyClosedException e) {
                    // the broker went away under the delivery: it comes again, flagged as a redelivery
                    o.lostAcks.incrementAndGet();
                }
            }
        });
        return o;
    }

    /** Messages ready in a queue of the run's vhost. */
    long messageCount(String queue) {
        try (Channel ch = connection.createChannel()) {
            return ch.queueDeclarePassive(queue).getMessageCount();
        } catch (IOException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot read the depth of " + queue, e);
        }
    }

    long duplicateIds() {
        return copies.values().stream().filter(n -> n > 1).count();
    }

    long extraCopies() {
        return copies.values().stream().mapToLong(n -> n - 1).sum();
    }

    @Override
    public void close() {
        try {
            connection.close(5_000);
        } catch (IOException | com.rabbitmq.client.AlreadyClosedException e) {
            System.out.println("[chaos] closing the observer: " + e);
        }
    }
}
