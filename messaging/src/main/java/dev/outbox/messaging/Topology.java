package dev.outbox.messaging;

import com.rabbitmq.client.Channel;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.topology.QueueDeclaration;
import java.io.IOException;
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

    /** Declares the exchanges, the queues, their dead-letter queues and their bindings. */
    public static void declare(Channel channel) throws IOException {
        BrokerTopology topology = BrokerTopology.onClasspath();
        for (String exchange : topology.exchanges()) {
            channel.exchangeDeclare(exchange, "topic", true, false, Map.of());
        }
        for (QueueDeclaration q : topology.queues()) {
            channel.queueDeclare(q.name(), true, false, false, q.arguments());
            channel.queueDeclare(q.deadLetterQueue(), true, false, false, Map.of());
            for (QueueDeclaration.Binding b : q.bindings()) {
                for (String key : b.routingKeys()) {
                    channel.queueBind(q.name(), b.exchange(), key);
                }
            }
        }
    }
}
