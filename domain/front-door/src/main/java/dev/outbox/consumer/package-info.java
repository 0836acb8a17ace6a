/**
 * The outbox's front door, consumer side: a {@link dev.outbox.consumer.MessageHandler} applies a
 * {@link dev.outbox.consumer.InboundMessage} inside the transaction that records it as processed
 * (so each message takes effect once); a {@link dev.outbox.consumer.ConsumerRegistration} says
 * which queue, mappers, migrations and tables of its own go with it; an
 * {@link dev.outbox.consumer.OutboxConsumer} named in {@code META-INF/services} lets the consumer
 * runtime (module {@code outbox-consumer-runtime}) find and run it.
 */
package dev.outbox.consumer;
