package dev.outbox.messaging.consume;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;
import dev.outbox.persistence.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A delivered message as a consumer sees it: the contract's properties and headers, read once.
 * {@link #parse} refuses a delivery that does not carry what the contract promises (a message
 * id above all: without it nothing can be deduplicated).
 */
public record InboundMessage(String messageId, String messageType, int messageVersion, String aggregateType,
        String aggregateId, Long aggregateVersion, String correlationId, Map<String, Object> headers, byte[] body,
        boolean redelivered) {

    /** Thrown for a delivery that breaks the wire contract; it can never be processed. */
    public static final class MalformedMessageException extends Exception {
        private static final long serialVersionUID = 1L;

        public MalformedMessageException(String message) {
            super(message);
        }
    }

    public static InboundMessage parse(Delivery delivery) throws MalformedMessageException {
        AMQP.BasicProperties p = delivery.getProperties();
        String messageId = p.getMessageId();
        if (messageId == null || messageId.isBlank()) {
            throw new MalformedMessageException("no messageId: it cannot be deduplicated");
        }
        Map<String, Object> headers = new HashMap<>();
        if (p.getHeaders() != null) {
            p.getHeaders().forEach((k, v) -> headers.put(k, v instanceof LongString ls ? ls.toString() : v));
        }
        String type = p.getType() != null ? p.getType() : stringHeader(headers, "message_type");
        if (type == null) {
            throw new MalformedMessageException("no message type (property type or header message_type)");
        }
        return new InboundMessage(messageId, type, intHeader(headers, "message_version").orElse(1),
                stringHeader(headers, "aggregate_type"), stringHeader(headers, "aggregate_id"),
                longHeader(headers, "aggregate_version").orElse(null), p.getCorrelationId(), Map.copyOf(headers),
                delivery.getBody(), delivery.getEnvelope().isRedeliver());
    }

    /** True when the message carries its aggregate and version, so it can be applied in order. */
    public boolean isOrdered() {
        return aggregateVersion != null && aggregateType != null && aggregateId != null;
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The body as a JSON tree (maps, lists, strings, BigDecimal numbers...). */
    public Object payload() throws JsonProcessingException {
        return Json.parseTree(bodyText());
    }

    private static String stringHeader(Map<String, Object> headers, String name) {
        Object v = headers.get(name);
        return v == null ? null : v.toString();
    }

    private static Optional<Integer> intHeader(Map<String, Object> headers, String name) {
        return longHeader(headers, name).map(Long::intValue);
    }

    private static Optional<Long> longHeader(Map<String, Object> headers, String name) {
        Object v = headers.get(name);
        if (v instanceof Number n) {
            return Optional.of(n.longValue());
        }
        if (v != null) {
            try {
                return Optional.of(Long.parseLong(v.toString()));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
