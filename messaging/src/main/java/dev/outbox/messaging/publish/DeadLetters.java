package dev.outbox.messaging.publish;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Moves a poison message to its dead-letter queue: the same body, properties and
 * {@code messageId}, plus headers saying why, by which consumer and after how many attempts.
 * Published through the default exchange to the queue itself, {@code mandatory}, and confirmed,
 * so the original is acked only once the broker holds the copy. This is done by publishing
 * rather than with a broker-side dead-letter exchange because the embedded broker does not take
 * RabbitMQ's {@code x-dead-letter-*} arguments. It forwards a delivery as it is; it never
 * creates a domain event (only the relay does that).
 */
public final class DeadLetters {
    public static final String REASON = "x-dead-letter-reason";
    public static final String CONSUMER = "x-dead-letter-consumer";
    public static final String ATTEMPTS = "x-dead-letter-attempts";
    public static final String ORIGINAL_EXCHANGE = "x-original-exchange";
    public static final String ORIGINAL_ROUTING_KEY = "x-original-routing-key";
    public static final String DEAD_LETTERED_AT = "x-dead-lettered-at";

    private DeadLetters() {
    }

    public static ConfirmPublisher.SoloOutcome forward(Connection connection, String deadLetterQueue,
            Delivery delivery, String consumer, String reason, int attempts, Duration timeout) {
        AMQP.BasicProperties p = delivery.getProperties();
        Map<String, Object> headers = new HashMap<>();
        if (p.getHeaders() != null) {
            headers.putAll(p.getHeaders());
        }
        headers.put(REASON, reason.length() > 1_000 ? reason.substring(0, 1_000) : reason);
        headers.put(CONSUMER, consumer);
        headers.put(ATTEMPTS, attempts);
        headers.put(ORIGINAL_EXCHANGE, delivery.getEnvelope().getExchange());
        headers.put(ORIGINAL_ROUTING_KEY, delivery.getEnvelope().getRoutingKey());
        headers.put(DEAD_LETTERED_AT, Instant.now().toString());
        AMQP.BasicProperties props = p.builder().headers(headers).deliveryMode(2).build();
        String messageId = p.getMessageId() != null ? p.getMessageId() : "no-message-id";
        props = props.builder().messageId(messageId).build();
        return ConfirmPublisher.publishAlone(connection,
                new OutboundMessage("", deadLetterQueue, props, delivery.getBody()), timeout);
    }
}
