package dev.outbox.consumer;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * A delivered message as a consumer sees it: the contract's properties and headers, read once,
 * after the runtime found the delivery honours the contract of its queue.
 *
 * <p>{@link #headers} holds plain JSON values only (strings, numbers, booleans, null, maps,
 * lists), whatever AMQP field types arrived, so a message reads the same whether it is handled
 * at once or held in the database first and handled later.
 *
 * @param messageId the outbox row's id: the dedupe key
 * @param messageType e.g. {@code payment.captured}
 * @param messageVersion the contract version the body follows
 * @param aggregateType the aggregate's type, or null when the message is not ordered
 * @param aggregateId the aggregate's id, or null
 * @param aggregateVersion the aggregate's version, or null: with it, messages apply in order
 * @param correlationId the request it came from, or null
 * @param headers the application headers as JSON values
 * @param body the payload bytes (UTF-8 JSON)
 * @param redelivered the broker's redelivery flag
 */
public record InboundMessage(
        String messageId,
        String messageType,
        int messageVersion,
        String aggregateType,
        String aggregateId,
        Long aggregateVersion,
        String correlationId,
        Map<String, Object> headers,
        byte[] body,
        boolean redelivered) {

    public InboundMessage {
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(messageType, "messageType");
        headers = headers == null ? Map.of() : headers;
        body = body == null ? new byte[0] : body;
    }

    /**
     * How many times the broker delivered this message before this delivery: a quorum queue's
     * {@code x-delivery-count} (every nack-requeue, channel close and consumer crash counts, not
     * only this consumer's counted failures); on a classic queue, which keeps no count, 1 for a
     * redelivery and 0 otherwise.
     */
    public long deliveryCount() {
        if (headers.get("x-delivery-count") instanceof Number n && n.longValue() >= 0) {
            return n.longValue();
        }
        return redelivered ? 1 : 0;
    }

    /** True when the message carries its aggregate and version, so it can be applied in order. */
    public boolean isOrdered() {
        return aggregateVersion != null && aggregateType != null && aggregateId != null;
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
