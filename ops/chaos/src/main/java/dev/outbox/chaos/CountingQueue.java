package dev.outbox.chaos;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.outbox.messaging.AmqpConnections;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.QueueType;
import dev.outbox.messaging.Topology;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rollout test's witness on the broker: a durable queue of its own, bound to every event of
 * the exchange the backlog's rows name, consumed in the test's JVM with a wide prefetch and acks
 * in batches, counting how often each of the backlog's ids arrives (an array indexed by the row's
 * place in the backlog, not a list of deliveries: a hundred thousand messages and more). A copy
 * delivered for the first time is one the relays published; the broker redelivering a copy this
 * consumer did not ack is not.
 */
final class CountingQueue implements AutoCloseable {
    static final String QUEUE = "rollout.counter";
    private static final int PREFETCH = 5_000;
    private static final int ACK_EVERY = 1_000;

    private final Map<UUID, Integer> index;
    private final AtomicIntegerArray copies;
    private final AtomicInteger distinct = new AtomicInteger();
    final AtomicLong deliveries = new AtomicLong();
    final AtomicLong redeliveries = new AtomicLong();
    /** Messages with an id that is not one of the backlog's: nothing else should publish here. */
    final AtomicLong foreign = new AtomicLong();

    private final Connection connection;
    private volatile boolean closing;
    private volatile String stopped;
    private volatile long firstNanos;
    private volatile long lastNewNanos;

    private CountingQueue(List<UUID> ids, Connection connection) {
        this.index = new HashMap<>(ids.size() * 2);
        for (int i = 0; i < ids.size(); i++) {
            index.put(ids.get(i), i);
        }
        this.copies = new AtomicIntegerArray(ids.size());
        this.connection = connection;
    }

    static CountingQueue start(String amqpUri, List<UUID> ids) throws IOException, TimeoutException {
        BrokerConfig config = BrokerConfig.of(amqpUri, "rollout-counter");
        Connection c = AmqpConnections.factory(config).newConnection(config.addresses(), "rollout-counter");
        CountingQueue q = new CountingQueue(ids, c);
        try {
            Channel ch = c.createChannel();
            Topology.declare(ch, QueueType.CLASSIC);
            ch.queueDelete(QUEUE);
            ch.queueDeclare(QUEUE, true, false, false, Map.of());
            ch.queueBind(QUEUE, Topology.ORDERS_EXCHANGE, "#");
            ch.basicQos(PREFETCH);
            ch.basicConsume(QUEUE, false, "rollout-counter", q.consumer(ch));
            return q;
        } catch (IOException | RuntimeException e) {
            q.close();
            throw e;
        }
    }

    private DefaultConsumer consumer(Channel ch) {
        return new DefaultConsumer(ch) {
            private int unacked;

            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                    throws IOException {
                long now = System.nanoTime();
                if (deliveries.getAndIncrement() == 0) {
                    firstNanos = now;
                }
                Integer i = properties.getMessageId() == null ? null : index.get(parse(properties.getMessageId()));
                if (i == null) {
                    foreign.incrementAndGet();
                } else if (envelope.isRedeliver()) {
                    // the broker's second try of a copy this consumer had not acked: no new copy
                    redeliveries.incrementAndGet();
                    if (copies.compareAndSet(i, 0, 1)) {
                        newId(now);
                    }
                } else if (copies.getAndIncrement(i) == 0) {
                    newId(now);
                }
                if (++unacked >= ACK_EVERY) {
                    getChannel().basicAck(envelope.getDeliveryTag(), true);
                    unacked = 0;
                }
            }

            @Override
            public void handleShutdownSignal(String tag, com.rabbitmq.client.ShutdownSignalException sig) {
                if (!closing) {
                    // every copy after this is uncounted: the run's "lost" would be this, not the relays
                    System.out.println("[rollout] the counting consumer stopped: " + sig.getMessage());
                    stopped = sig.getMessage();
                }
            }
        };
    }

    /** Why the consumer stopped before the end, or null: the counts after it are incomplete. */
    String stoppedEarly() {
        return stopped;
    }

    private void newId(long now) {
        distinct.incrementAndGet();
        lastNewNanos = now;
    }

    private static UUID parse(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException notOurs) {
            return null;
        }
    }

    /** Ids of the backlog delivered at least once. */
    int distinct() {
        return distinct.get();
    }

    /** First deliveries of ids already delivered: what was published more than once. */
    long extraCopies() {
        long extra = 0;
        for (int i = 0; i < copies.length(); i++) {
            extra += Math.max(0, copies.get(i) - 1);
        }
        return extra;
    }

    /** Ids delivered more than once. */
    int duplicatedIds() {
        int n = 0;
        for (int i = 0; i < copies.length(); i++) {
            if (copies.get(i) > 1) {
                n++;
            }
        }
        return n;
    }

    /** The backlog's ids never delivered, in backlog order. */
    List<UUID> missing(List<UUID> ids) {
        List<UUID> out = new ArrayList<>();
        for (int i = 0; i < copies.length(); i++) {
            if (copies.get(i) == 0) {
                out.add(ids.get(i));
            }
        }
        return out;
    }

    /** Copies counted: first deliveries only, foreign ids aside. */
    long copiesCounted() {
        long n = 0;
        for (int i = 0; i < copies.length(); i++) {
            n += copies.get(i);
        }
        return n;
    }

    /** Messages waiting in the queue, not yet delivered to this consumer. */
    long ready() throws IOException {
        try (Channel ch = connection.createChannel()) {
            return ch.queueDeclarePassive(QUEUE).getMessageCount();
        } catch (TimeoutException e) {
            throw new IOException("no answer about " + QUEUE, e);
        }
    }

    /** Nanos of the first delivery and of the last id delivered for the first time; 0 before. */
    long firstDeliveryNanos() {
        return firstNanos;
    }

    long lastNewIdNanos() {
        return lastNewNanos;
    }

    /** The broker's product and version, as it announced itself. */
    String broker() {
        Map<String, Object> p = connection.getServerProperties();
        return p.get("product") + " " + p.get("version");
    }

    /** Deletes the queue (the run's witness only) and closes the connection; once, whoever asks first. */
    @Override
    public synchronized void close() {
        if (closing) {
            return;
        }
        closing = true;
        try {
            if (connection.isOpen()) {
                try (Channel ch = connection.createChannel()) {
                    ch.queueDelete(QUEUE);
                }
                connection.close(5_000);
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            System.out.println("[rollout] could not delete " + QUEUE + ": " + e);
        }
    }
}
