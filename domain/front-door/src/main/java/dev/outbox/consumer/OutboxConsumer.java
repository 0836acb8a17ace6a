package dev.outbox.consumer;

/**
 * A consumer the runtime can find and run: a class with a public no-argument constructor, named
 * in its jar's {@code META-INF/services/dev.outbox.consumer.OutboxConsumer}. {@code ConsumerMain
 * <name>} runs one, {@code ops/run.sh} runs every one on its classpath; nothing shared names it.
 */
public interface OutboxConsumer {
    ConsumerRegistration registration();
}
