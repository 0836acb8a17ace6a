package dev.outbox.messaging;

import com.rabbitmq.client.Channel;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.topology.QueueDeclaration;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Declares the broker topology that {@link BrokerTopology} reads as data: every exchange the
 * contracts name (durable topic) and every consumer queue a module ships a
 * {@code topology/<queue>.queue.json} for, with its dead-letter queue and bindings. Every
 * declaration is idempotent, so the relay and each consumer declare it at start-up and a fresh
 * broker needs no manual set-up. The relay publishes with {@code mandatory}, so a routing key with
 * no binding is parked as {@code UNROUTABLE}.
 */
public final class Topology {
    /** The order service's exchange; its contracts name it. */
    public static final String ORDERS_EXCHANGE = "orders.events";

    private Topology() {}

    /** Where a consumer of {@code queue} puts messages it can never process: as declared, else {@code <queue>.dlq}. */
    public static String deadLetterQueueOf(String queue) {
        return BrokerTopology.onClasspath()
                .find(queue)
                .map(QueueDeclaration::deadLetterQueue)
                .orElse(queue + ".dlq");
    }

    /** The consumer queues on this classpath. */
    public static List<QueueDeclaration> queues() {
        return BrokerTopology.onClasspath().queues();
    }

    /** {@link #declare(Channel, QueueType)} with classic queues, the single-node default. */
    public static void declare(Channel channel) throws IOException {
        declare(channel, QueueType.CLASSIC);
    }

    /**
     * Declares the exchanges, the queues, their dead-letter queues and their bindings, consumer
     * queues and dead-letter queues of {@code type} unless a queue file names its own
     * {@code x-queue-type}. Called on every new connection, so after a failover to another node
     * the topology is there before anything is published or consumed.
     */
    public static void declare(Channel channel, QueueType type) throws IOException {
        BrokerTopology topology = BrokerTopology.onClasspath();
        for (String exchange : topology.exchanges()) {
            channel.exchangeDeclare(exchange, "topic", true, false, Map.of());
        }
        for (QueueDeclaration q : topology.queues()) {
            Map<String, Object> arguments = queueArguments(q, type);
            channel.queueDeclare(q.name(), true, false, false, arguments);
            channel.queueDeclare(q.deadLetterQueue(), true, false, false, typeOnly(arguments));
            for (QueueDeclaration.Binding b : q.bindings()) {
                for (String key : b.routingKeys()) {
                    channel.queueBind(q.name(), b.exchange(), key);
                }
            }
        }
    }

    /**
     * A consumer queue's arguments: its file's, plus {@code x-queue-type} for a type other than
     * classic. A file that sets
     * {@code x-delivery-limit} (quorum queues: the broker drops a message delivered that many
     * times) gets its dead-letter queue as the broker's dead-letter target, so a message the
     * broker gives up on lands where the consumer's own poison handling puts it, never nowhere.
     */
    static Map<String, Object> queueArguments(QueueDeclaration q, QueueType type) {
        Map<String, Object> arguments = new LinkedHashMap<>(q.arguments());
        if (type != QueueType.CLASSIC) {
            // classic is the broker's default: saying nothing keeps queues declared by earlier
            // versions (without the argument) equivalent, so an upgrade is not refused with 406
            arguments.putIfAbsent("x-queue-type", type.argument());
        }
        if (arguments.containsKey("x-delivery-limit") && !arguments.containsKey("x-dead-letter-exchange")) {
            arguments.put("x-dead-letter-exchange", "");
            arguments.put("x-dead-letter-routing-key", q.deadLetterQueue());
        }
        return arguments;
    }

    /** A dead-letter queue is of its queue's type, with no other argument. */
    static Map<String, Object> typeOnly(Map<String, Object> queueArguments) {
        Object type = queueArguments.get("x-queue-type");
        return type == null ? Map.of() : Map.of("x-queue-type", type);
    }
}
