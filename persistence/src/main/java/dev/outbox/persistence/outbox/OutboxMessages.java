package dev.outbox.persistence.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.outbox.domain.TimeOrderedIds;
import dev.outbox.domain.event.DomainEvent;
import dev.outbox.domain.event.MessageContract;
import dev.outbox.persistence.json.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a domain event into the outbox row that will carry it. The payload is serialised here,
 * once, parsed back and checked against its message contract, so the snapshot that commits is
 * exactly one the relay will accept and publish byte for byte.
 */
public final class OutboxMessages {
    private OutboxMessages() {
    }

    /**
     * @throws MessageContractViolationException when the domain produced a payload that breaks
     *     its own contract: a bug, and the business transaction must not commit
     */
    public static NewOutboxMessage from(DomainEvent event, MessageContext context, long nowEpochMillis) {
        String payload = Json.write(event.payload());
        List<String> violations;
        try {
            violations = MessageContract.violations(event.type().messageType(), event.type().messageVersion(),
                    event.aggregateId().toString(), Json.parseTree(payload));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("payload of " + event.type().messageType() + " is not JSON", e);
        }
        if (!violations.isEmpty()) {
            throw new MessageContractViolationException(event.type().messageType(), event.type().messageVersion(),
                    violations);
        }
        Map<String, Object> headers = new LinkedHashMap<>();
        if (MessageContext.isValidTraceparent(context.traceparent())) {
            headers.put("traceparent", context.traceparent());
        }
        return new NewOutboxMessage(
                TimeOrderedIds.next(nowEpochMillis),
                event.aggregateType(),
                event.aggregateId().toString(),
                event.aggregateVersion(),
                event.type().messageType(),
                event.type().messageVersion(),
                event.type().exchange(),
                event.type().routingKey(),
                payload,
                Json.write(headers),
                context.correlationId(),
                context.causationId(),
                context.traceId(),
                context.tenantId());
    }
}
