package dev.outbox.messaging;

import com.rabbitmq.client.Channel;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The broker topology as code. Every declaration is idempotent, so the relay and each consumer
 * declare it at start-up and a fresh broker needs no manual set-up. The relay publishes with
 * {@code mandatory}, so a routing key with no binding is parked as {@code UNROUTABLE}: the
 * bindings here must cover every message type whose contract names this exchange, which
 * {@code TopologyTest} checks.
 */
public final class Topology {
    /** The durable topic exchange all order events go to. */
    public static final String ORDERS_EXCHANGE = "orders.events";

    /** The sample ledger consumer's queue: every order event, so it can apply them in aggregate order. */
    public static final String LEDGER_QUEUE = "ledger.order-events";

    /** A durable queue, the routing keys bound to it on {@link #ORDERS_EXCHANGE}, and its dead-letter queue. */
    public record QueueSpec(String name, List<String> routingKeys) {
        public String deadLetterQueue() {
            return deadLetterQueueOf(name);
        }
    }

    /** Where a consumer of {@code queue} puts messages it can never process. */
    public static String deadLetterQueueOf(String queue) {
        return queue + ".dlq";
    }

    /** The consumer queues this service's topology creates. */
    public static List<QueueSpec> queues() {
        return List.of(new QueueSpec(
                LEDGER_QUEUE,
                MessageContracts.onClasspath().all().stream()
                        .filter(c -> ORDERS_EXCHANGE.equals(c.exchange()))
                        .map(MessageContract::routingKey)
                        .distinct()
                        .toList()));
    }

    private Topology() {}

    /** Declares the exchange, the queues and their bindings. */
    public static void declare(Channel channel) throws IOException {
        channel.exchangeDeclare(ORDERS_EXCHANGE, "topic", true, false, Map.of());
        for (QueueSpec q : queues()) {
            channel.queueDeclare(q.name(), true, false, false, Map.of());
            channel.queueDeclare(q.deadLetterQueue(), true, false, false, Map.of());
            for (String key : q.routingKeys()) {
                channel.queueBind(q.name(), ORDERS_EXCHANGE, key);
            }
        }
    }
}
