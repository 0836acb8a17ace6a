package dev.outbox.consumer;

import dev.outbox.persistence.retention.RetentionTarget;
import java.util.List;
import java.util.Objects;

/**
 * What makes a consumer, beside its handler class: its name (the dedupe records' consumer name),
 * its queue (declared by the {@code topology/<queue>.queue.json} it ships), the prefix of its
 * settings ({@code OUTBOX_<PREFIX>_PREFETCH}, {@code _CHANNELS}, {@code _HTTP_PORT}, ...), the
 * MyBatis mappers its handler needs, its default HTTP port, and the tables of its own that
 * retention keeps short (pruned by its process, under {@code OUTBOX_RETENTION_*}).
 * {@link ConsumerApp} is the process around it, the same for every consumer.
 */
public record ConsumerRegistration(
        String name,
        String queue,
        String settingsPrefix,
        Class<? extends MessageHandler> handler,
        List<Class<?>> mappers,
        int defaultHttpPort,
        List<RetentionTarget<?>> retention) {

    public ConsumerRegistration {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(settingsPrefix, "settingsPrefix");
        Objects.requireNonNull(handler, "handler");
        mappers = List.copyOf(mappers);
        retention = List.copyOf(retention);
        for (RetentionTarget<?> target : retention) {
            if (!mappers.contains(target.mapper())) {
                throw new IllegalArgumentException("retention of " + target.table() + " uses "
                        + target.mapper().getName() + ", which is not among the consumer's mappers");
            }
        }
    }

    /** A consumer with no tables of its own to prune. */
    public ConsumerRegistration(
            String name,
            String queue,
            String settingsPrefix,
            Class<? extends MessageHandler> handler,
            List<Class<?>> mappers,
            int defaultHttpPort) {
        this(name, queue, settingsPrefix, handler, mappers, defaultHttpPort, List.of());
    }
}
