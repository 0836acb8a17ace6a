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
            declareExchange(channel, exchange);
        }
        for (QueueDeclaration q : topology.queues()) {
            declareQueue(channel, q, type);
        }
    }

    /** A durable topic exchange, as every exchange of the outbox is. */
    public static void declareExchange(Channel channel, String exchange) throws IOException {
        channel.exchangeDeclare(exchange, "topic", true, false, Map.of());
    }

    /**
     * One consumer queue, its dead-letter queue and its bindings, of {@code type} unless its
     * declaration names its own {@code x-queue-type}. The broker refuses a queue that exists with
     * other arguments (406), which closes {@code channel}.
     */
    public static void declareQueue(Channel channel, QueueDeclaration q, QueueType type) throws IOException {
        Map<String, Object> arguments = queueArguments(q, type);
        channel.queueDeclare(q.name(), true, false, false, arguments);
        channel.queueDeclare(q.deadLetterQueue(), true, false, false, deadLetterArguments(q, arguments));
        bindQueue(channel, q);
    }

    /**
     * The bindings of a queue alone: for a queue that exists with other arguments than {@code q}
     * says (its declaration refused with 406), whose bindings still route what they name.
     */
    public static void bindQueue(Channel channel, QueueDeclaration q) throws IOException {
        for (QueueDeclaration.Binding b : q.bindings()) {
            for (String key : b.routingKeys()) {
                channel.queueBind(q.name(), b.exchange(), key);
            }
        }
    }

    /**
     * A consumer queue's arguments: its file's, plus {@code x-queue-type} for a type other than
     * classic. No broker default may drop a message: a quorum queue always gets an explicit
     * {@code x-delivery-limit} (the file's {@code deliveryLimit}, default
     * {@value QueueDeclaration#DEFAULT_DELIVERY_LIMIT}; RabbitMQ 4 would otherwise apply 20, 3.10
     * none), and a queue with a delivery limit gets its dead-letter queue as the broker's
     * dead-letter target, at-least-once (the broker keeps the message until the dead-letter
     * queue has it; that strategy needs {@code x-overflow=reject-publish}, which without a length
     * limit changes nothing else). What the broker gives up on lands where the consumer's own
     * poison handling puts it. Classic queues get none of this: they have no delivery limit, and
     * the embedded broker refuses RabbitMQ's arguments.
     */
    static Map<String, Object> queueArguments(QueueDeclaration q, QueueType type) {
        Map<String, Object> arguments = new LinkedHashMap<>(q.arguments());
        if (type != QueueType.CLASSIC) {
            // classic is the broker's default: saying nothing keeps queues declared by earlier
            // versions (without the argument) equivalent, so an upgrade is not refused with 406
            arguments.putIfAbsent("x-queue-type", type.argument());
        }
        boolean quorum = isQuorum(arguments);
        if (quorum) {
            arguments.putIfAbsent("x-delivery-limit", (long) q.deliveryLimit());
        }
        if (arguments.containsKey("x-delivery-limit") && !arguments.containsKey("x-dead-letter-exchange")) {
            arguments.put("x-dead-letter-exchange", "");
            arguments.put("x-dead-letter-routing-key", q.deadLetterQueue());
            if (quorum) {
                arguments.putIfAbsent("x-dead-letter-strategy", "at-least-once");
                arguments.putIfAbsent("x-overflow", "reject-publish");
            }
        }
        return arguments;
    }

    /**
     * A dead-letter queue is of its queue's type; a quorum one has an explicit, very high delivery
     * limit (the file's {@code deadLetterDeliveryLimit}) and no target: it is the end of the line,
     * where only an operator's inspections redeliver.
     */
    static Map<String, Object> deadLetterArguments(QueueDeclaration q, Map<String, Object> queueArguments) {
        Object type = queueArguments.get("x-queue-type");
        if (type == null) {
            return Map.of();
        }
        if (isQuorum(queueArguments)) {
            return Map.of("x-queue-type", type, "x-delivery-limit", (long) q.deadLetterDeliveryLimit());
        }
        return Map.of("x-queue-type", type);
    }

    /**
     * The {@code x-delivery-limit} {@code queue} is declared with under {@code type}, if any: a
     * consumer's own attempts must stay below it, or the broker dead-letters a failing message
     * before the consumer has given up on it (without the consumer's reason).
     */
    public static java.util.OptionalLong deliveryLimitOf(String queue, QueueType type) {
        return BrokerTopology.onClasspath()
                .find(queue)
                .map(q -> queueArguments(q, type).get("x-delivery-limit"))
                .filter(Number.class::isInstance)
                .map(n -> java.util.OptionalLong.of(((Number) n).longValue()))
                .orElse(java.util.OptionalLong.empty());
    }

    private static boolean isQuorum(Map<String, Object> arguments) {
        return QueueType.QUORUM.argument().equals(String.valueOf(arguments.get("x-queue-type")));
    }
}
