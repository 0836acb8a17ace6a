package dev.outbox.messaging.publish;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.AMQP;
import dev.outbox.Traceparent;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The AMQP message mapping of the contract: {@code messageId} is the outbox row id (the same on
 * every retry and replay), persistent, JSON, the message type as {@code type}, and the
 * identifying headers. The body is the stored payload snapshot as the row holds it
 * (PostgreSQL's text of the {@code jsonb} value), never re-serialised. A row whose payload is not JSON or breaks its contract is refused here, before
 * anything is sent.
 */
public final class AmqpMessageMapper {
    public static final String CONTENT_TYPE = "application/json";

    /** Headers the contract owns; a row's own {@code headers} JSON cannot override them. */
    static final Set<String> CONTRACT_HEADERS = Set.of(
            "message_type",
            "message_version",
            "aggregate_type",
            "aggregate_id",
            "aggregate_version",
            "tenant_id",
            "causation_id",
            "traceparent");

    private AmqpMessageMapper() {}

    /** The result of mapping a row: a message, or why the row can never be published. */
    public sealed interface Mapped permits Ready, Invalid {}

    public record Ready(OutboundMessage message) implements Mapped {}

    /** Why a row can never be published, and the code it is parked with. */
    public record Invalid(ErrorCode code, String reason) implements Mapped {
        static Invalid payload(String reason) {
            return new Invalid(ErrorCode.PAYLOAD_INVALID, reason);
        }
    }

    /**
     * Maps a row. Whatever a SQL client stored, the answer is a message or a reason; an exception
     * from here is a fault of the relay's own (the caller retries the row with backoff and counts
     * it), never a verdict on the row, which would park it for good.
     */
    public static Mapped map(OutboxRecord row) {
        return map(row, MessageContracts.onClasspath());
    }

    /**
     * Maps a row checked against {@code contracts}: the relay's own catalogue, its classpath and
     * what producers registered in the database, instead of this process's classpath alone.
     */
    public static Mapped map(OutboxRecord row, MessageContracts contracts) {
        JsonNode payload;
        try {
            payload = Json.mapper().readTree(row.payload());
        } catch (JsonProcessingException e) {
            return Invalid.payload("payload is not valid JSON: " + e.getOriginalMessage());
        }
        List<String> violations = new java.util.ArrayList<>(
                contracts.violations(row.messageType(), row.messageVersion(), row.aggregateId(), payload));
        contracts
                .find(row.messageType(), row.messageVersion())
                .ifPresent(c -> violations.addAll(c.envelopeViolations(
                        row.aggregateType(), row.aggregateVersion(), row.exchangeName(), row.routingKey())));
        if (!violations.isEmpty()) {
            return Invalid.payload("breaks the " + row.messageType() + " v" + row.messageVersion() + " contract: "
                    + String.join("; ", violations));
        }
        Map<String, Object> extra;
        try {
            Object parsed = Json.parseTree(row.headers() == null ? "{}" : row.headers());
            if (!(parsed instanceof Map<?, ?> m)) {
                return Invalid.payload("headers must be a JSON object");
            }
            extra = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                Object v = e.getValue();
                if (v instanceof String || v instanceof Number || v instanceof Boolean) {
                    extra.put(String.valueOf(e.getKey()), v instanceof java.math.BigDecimal bd ? bd.toString() : v);
                } else if (v != null) {
                    return Invalid.payload("header " + e.getKey() + " must be a string, number or boolean");
                }
            }
        } catch (JsonProcessingException e) {
            return Invalid.payload("headers are not valid JSON: " + e.getOriginalMessage());
        }

        Map<String, Object> headers = new LinkedHashMap<>();
        extra.forEach((k, v) -> {
            if (!CONTRACT_HEADERS.contains(k)) {
                headers.put(k, v);
            }
        });
        headers.put("message_type", row.messageType());
        headers.put("message_version", row.messageVersion());
        headers.put("aggregate_type", row.aggregateType());
        headers.put("aggregate_id", row.aggregateId());
        if (row.aggregateVersion() != null) {
            headers.put("aggregate_version", row.aggregateVersion());
        }
        if (row.tenantId() != null) {
            headers.put("tenant_id", row.tenantId());
        }
        if (row.causationId() != null) {
            headers.put("causation_id", row.causationId());
        }
        Object traceparent = extra.get("traceparent");
        if (traceparent instanceof String tp && Traceparent.isValid(tp)) {
            headers.put("traceparent", tp);
        }

        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .messageId(row.id().toString())
                .deliveryMode(2)
                .contentType(CONTENT_TYPE)
                .contentEncoding("utf-8")
                .type(row.messageType())
                .correlationId(row.correlationId())
                .timestamp(timestamp(row.createdAt()))
                .headers(headers)
                .build();
        return new Ready(new OutboundMessage(
                row.exchangeName(), row.routingKey(), props, row.payload().getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * AMQP carries a timestamp as seconds in a signed 64-bit integer; a {@code created_at} of
     * {@code infinity} (which pgjdbc reads as the far future) does not fit a {@link Date}. Such a
     * row still goes out, without a timestamp: the column is metadata, not the message.
     */
    private static Date timestamp(java.time.Instant createdAt) {
        try {
            return Date.from(createdAt);
        } catch (IllegalArgumentException | ArithmeticException outOfRange) {
            return null;
        }
    }
}
