package dev.outbox.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.MessageContractViolationException;
import dev.outbox.MessageType;
import dev.outbox.TimeOrderedIds;
import dev.outbox.Traceparent;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.tracing.TraceContexts;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a domain event into the outbox row that will carry it. The payload is serialised here,
 * once, parsed back and checked against the contract of its type (its JSON Schema in
 * {@code contracts/}), so the snapshot that commits is exactly one the relay will accept and
 * publish as stored ({@code jsonb}: the same JSON value, in PostgreSQL's rendering). Where the row goes (exchange, routing key) is the contract's to say.
 */
public final class OutboxMessages {
    private OutboxMessages() {}

    /**
     * @throws MessageContractViolationException when the domain produced a payload that breaks
     *     its own contract, or an event whose type has no contract: a bug, and the business
     *     transaction must not commit
     */
    public static NewOutboxMessage from(DomainEvent event, MessageContext context, long nowEpochMillis) {
        return from(MessageContracts.onClasspath(), event, context, nowEpochMillis);
    }

    /** As {@link #from(DomainEvent, MessageContext, long)}, against the given catalogue. */
    public static NewOutboxMessage from(
            MessageContracts contracts, DomainEvent event, MessageContext context, long nowEpochMillis) {
        return from(
                contracts,
                event.type(),
                event.aggregateType(),
                event.aggregateId().toString(),
                event.aggregateVersion(),
                event.payload(),
                context,
                nowEpochMillis);
    }

    /**
     * The row for one message of {@code type} about an aggregate, its payload serialised once and
     * checked against the type's contract.
     *
     * @throws MessageContractViolationException when the type has no contract, the aggregate type
     *     is not the contract's, an ordered type comes without a version, or the payload breaks it
     */
    public static NewOutboxMessage from(
            MessageContracts contracts,
            MessageType type,
            String aggregateType,
            String aggregateId,
            Long aggregateVersion,
            Object payload,
            MessageContext context,
            long nowEpochMillis) {
        MessageContract contract = contracts
                .find(type.name(), type.version())
                .orElseThrow(() -> new MessageContractViolationException(
                        type.name(),
                        type.version(),
                        List.of("there is no contract " + MessageContracts.fileOf(type.name(), type.version()))));
        List<String> envelope = contract.envelopeViolations(
                aggregateType, aggregateVersion, contract.exchange(), contract.routingKey());
        if (!envelope.isEmpty()) {
            // what the relay would park and every consumer refuse: the business transaction fails now
            throw new MessageContractViolationException(type.name(), type.version(), envelope);
        }
        String json = Json.write(payload);
        JsonNode tree;
        try {
            tree = Json.mapper().readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("payload of " + type + " is not JSON", e);
        }
        List<String> violations = contract.violations(aggregateId, tree);
        if (!violations.isEmpty()) {
            throw new MessageContractViolationException(type.name(), type.version(), violations);
        }
        // inside a trace the row carries the span that writes it (the transaction's), so the
        // relay's publish continues the trace; with tracing off, the caller's traceparent as it came
        String traced = TraceContexts.current();
        String traceparent = traced != null ? traced : context.traceparent();
        Map<String, Object> headers = new LinkedHashMap<>();
        if (MessageContext.isValidTraceparent(traceparent)) {
            headers.put("traceparent", traceparent);
        }
        return new NewOutboxMessage(
                TimeOrderedIds.next(nowEpochMillis),
                aggregateType,
                aggregateId,
                aggregateVersion,
                type.name(),
                type.version(),
                contract.exchange(),
                contract.routingKey(),
                json,
                Json.write(headers),
                context.correlationId(),
                context.causationId(),
                Traceparent.traceId(traceparent),
                context.tenantId());
    }
}
