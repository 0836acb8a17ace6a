package dev.outbox.consumer.runtime;

import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.OutboundMessage;

/**
 * The AMQP message the relay would publish for a row, for tests that publish directly to a
 * consumer's queue (shipped in this module's test jar for the consumers' and the relay's tests).
 */
public final class Wires {
    private Wires() {}

    public static OutboundMessage of(NewOutboxMessage m) {
        return ((AmqpMessageMapper.Ready) AmqpMessageMapper.map(m.asPendingRecord())).message();
    }
}
