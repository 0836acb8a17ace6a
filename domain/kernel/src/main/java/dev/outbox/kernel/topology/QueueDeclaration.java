package dev.outbox.kernel.topology;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A consumer's durable queue, as its {@code topology/<queue>.queue.json} declares it: the bindings
 * that fill it, its arguments, and the dead-letter queue its consumer parks poison messages in.
 */
public record QueueDeclaration(
        String name, String consumer, List<Binding> bindings, Map<String, Object> arguments, String deadLetterQueue) {

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
    }

    /** Every routing key bound on {@code exchange}. */
    public List<String> routingKeysOn(String exchange) {
        return bindings.stream()
                .filter(b -> b.exchange().equals(exchange))
                .flatMap(b -> b.routingKeys().stream())
                .toList();
    }
}
