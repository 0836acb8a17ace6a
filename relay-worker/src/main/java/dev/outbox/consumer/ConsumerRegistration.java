package dev.outbox.consumer;

import dev.outbox.messaging.consume.MessageHandler;
import java.util.List;
import java.util.Objects;

/**
 * What makes a consumer, beside its handler class: its name (the dedupe records' consumer name),
 * its queue (declared by the {@code topology/<queue>.queue.json} it ships), the prefix of its
 * settings ({@code OUTBOX_<PREFIX>_PREFETCH}, {@code _CHANNELS}, {@code _HTTP_PORT}, ...), the
 * MyBatis mappers its handler needs, and its default HTTP port. {@link ConsumerApp} is the
 * process around it, the same for every consumer.
 */
public record ConsumerRegistration(
        String name,
        String queue,
        String settingsPrefix,
        Class<? extends MessageHandler> handler,
        List<Class<?>> mappers,
        int defaultHttpPort) {

    public ConsumerRegistration {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(settingsPrefix, "settingsPrefix");
        Objects.requireNonNull(handler, "handler");
        mappers = List.copyOf(mappers);
    }
}
