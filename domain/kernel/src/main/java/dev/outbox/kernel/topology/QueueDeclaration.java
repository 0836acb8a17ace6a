package dev.outbox.kernel.topology;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A consumer's durable queue, as its {@code topology/<queue>.queue.json} declares it: the bindings
 * that fill it, its arguments, the dead-letter queue its consumer parks poison messages in, and,
 * for when it is a quorum queue, the delivery limits of both.
 *
 * @param deliveryLimit the quorum queue's {@code x-delivery-limit}: deliveries of one message
 *     after which the broker moves it to {@link #deadLetterQueue} (RabbitMQ 4 would otherwise set
 *     20 and, with no dead-letter target, drop it); above the consumer's own attempts
 * @param deadLetterDeliveryLimit the dead-letter queue's {@code x-delivery-limit}: it has no
 *     target of its own, so the limit is set far beyond any number of inspections (get and
 *     requeue) an operator makes, where RabbitMQ 4's default of 20 would drop a dead letter
 */
public record QueueDeclaration(
        String name,
        String consumer,
        List<Binding> bindings,
        Map<String, Object> arguments,
        String deadLetterQueue,
        int deliveryLimit,
        int deadLetterDeliveryLimit) {

    /** Unless the queue file says otherwise: well above the consumers' default of 5 attempts. */
    public static final int DEFAULT_DELIVERY_LIMIT = 50;

    /** Unless the queue file says otherwise. */
    public static final int DEFAULT_DEAD_LETTER_DELIVERY_LIMIT = 1_000_000;

    /** Routing keys bound to the queue on one exchange. */
    public record Binding(String exchange, List<String> routingKeys) {
        public Binding {
            Objects.requireNonNull(exchange, "exchange");
            routingKeys = List.copyOf(routingKeys);
        }
    }

    public QueueDeclaration {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(consumer, "consumer");
        bindings = List.copyOf(bindings);
        arguments = Map.copyOf(arguments);
        Objects.requireNonNull(deadLetterQueue, "deadLetterQueue");
        // 0 drops a message at its first requeue, and RabbitMQ 3.10 takes -1 the same way
        if (deliveryLimit < 1 || deadLetterDeliveryLimit < 1) {
            throw new IllegalArgumentException(name + ": delivery limits must be at least 1 (" + deliveryLimit + ", "
                    + deadLetterDeliveryLimit + ")");
        }
    }

    /** A queue with the default delivery limits. */
    public QueueDeclaration(
            String name,
            String consumer,
            List<Binding> bindings,
            Map<String, Object> arguments,
            String deadLetterQueue) {
        this(
                name,
                consumer,
                bindings,
                arguments,
                deadLetterQueue,
                DEFAULT_DELIVERY_LIMIT,
                DEFAULT_DEAD_LETTER_DELIVERY_LIMIT);
    }

    /** Every routing key bound on {@code exchange}. */
    public List<String> routingKeysOn(String exchange) {
        return bindings.stream()
                .filter(b -> b.exchange().equals(exchange))
                .flatMap(b -> b.routingKeys().stream())
                .toList();
    }
}
