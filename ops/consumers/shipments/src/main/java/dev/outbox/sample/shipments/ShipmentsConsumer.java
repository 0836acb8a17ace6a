package dev.outbox.sample.shipments;

import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.consumer.OutboxConsumer;

/**
 * The sample shipments consumer: every shipped order, recorded once in a table of its own
 * ({@code shipments}, from its own migrations in {@code db/shipments}). It exists to show what a
 * consumer is: this folder, and nothing shared edited (relay-worker/consumer-runtime/README.md, "Adding a consumer").
 */
public final class ShipmentsConsumer implements OutboxConsumer {
    public static final String NAME = "shipments";

    /** Declared by {@code topology/shipments.order-events.queue.json}: it binds {@code order.shipped} only. */
    public static final String QUEUE = "shipments.order-events";

    public static final ConsumerRegistration REGISTRATION = ConsumerRegistration.builder(
                    NAME, QUEUE, ShipmentsHandler.class)
            .mappers(ShipmentMapper.class)
            .migrations("classpath:db/shipments")
            .httpPort(8083)
            // its queue binds order.shipped only: in aggregate order it would wait for v1 forever
            .asDelivered()
            .build();

    @Override
    public ConsumerRegistration registration() {
        return REGISTRATION;
    }
}
