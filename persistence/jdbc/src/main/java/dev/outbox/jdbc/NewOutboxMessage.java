package dev.outbox.jdbc;

import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A row to insert into the outbox, inside the business transaction. {@code payload} is the JSON
 * snapshot the row keeps ({@code jsonb}: the value, not these bytes) and the relay publishes; build it with {@link OutboxMessages} so that it is
 * validated against its contract before it can commit.
 */
public record NewOutboxMessage(
        UUID id,
        String aggregateType,
        String aggregateId,
        Long aggregateVersion,
        String messageType,
        int messageVersion,
        String exchangeName,
        String routingKey,
        String payload,
        String headers,
        String correlationId,
        String causationId,
        String traceId,
        String tenantId) {

    public NewOutboxMessage {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(aggregateType, "aggregateType");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(messageType, "messageType");
        Objects.requireNonNull(exchangeName, "exchangeName");
        Objects.requireNonNull(routingKey, "routingKey");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(headers, "headers");
    }

    /**
     * The row as the relay reads it back before claiming it ({@code PENDING}, no attempt yet): for
     * mapping a message to AMQP without a database (the benchmark's broker ceiling, tests that
     * publish straight to a queue).
     */
    public OutboxRecord asPendingRecord() {
        Instant now = Instant.now();
        return new OutboxRecord(
                id,
                aggregateType,
                aggregateId,
                aggregateVersion,
                messageType,
                messageVersion,
                exchangeName,
                routingKey,
                payload,
                headers,
                OutboxStatus.PENDING.name(),
                0,
                now,
                null,
                null,
                now,
                null,
                null,
                null,
                null,
                correlationId,
                causationId,
                traceId,
                tenantId);
    }
}
