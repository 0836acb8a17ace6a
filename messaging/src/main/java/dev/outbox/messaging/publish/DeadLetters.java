package dev.outbox.messaging.publish;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import dev.outbox.kernel.outbox.ErrorCode;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Moves a poison message to its dead-letter queue: the same body, properties and
 * {@code messageId}, plus headers saying why, by which consumer and after how many attempts.
 * Published through the default exchange to the queue itself, {@code mandatory}, and confirmed,
 * so the original is acked only once the broker holds the copy. This is done by publishing
 * rather than with a broker-side dead-letter exchange because the embedded broker does not take
 * RabbitMQ's {@code x-dead-letter-*} arguments. It forwards a delivery as it is; it never
 * creates a domain event (only the relay does that).
 *
 * <p>Two properties are not copied, because the copy must stay where it is put and the broker
 * must accept it from this consumer: {@code expiration} (a dead letter that expires is lost) and
 * {@code userId} (RabbitMQ refuses a publish naming another user); their values go into
 * {@link #ORIGINAL_EXPIRATION} and {@link #ORIGINAL_USER_ID}. When the original headers and
 * these would not fit in one frame, the original headers are left out and
 * {@link #ORIGINAL_HEADERS_DROPPED} says so.
 */
public final class DeadLetters {
    public static final String REASON = "x-dead-letter-reason";
    public static final String CONSUMER = "x-dead-letter-consumer";
    public static final String ATTEMPTS = "x-dead-letter-attempts";
    public static final String ORIGINAL_EXCHANGE = "x-original-exchange";
    public static final String ORIGINAL_ROUTING_KEY = "x-original-routing-key";
    public static final String ORIGINAL_EXPIRATION = "x-original-expiration";
    public static final String ORIGINAL_USER_ID = "x-original-user-id";
    public static final String ORIGINAL_HEADERS_DROPPED = "x-original-headers-dropped";
    /** Set on a message that was held by the consumer (stored, not a broker delivery) when it failed. */
    public static final String HELD = "x-dead-letter-held";

    public static final String DEAD_LETTERED_AT = "x-dead-lettered-at";

    private static final int MAX_REASON = 1_000;

    /** A message a consumer kept in its database and that is no longer a broker delivery. */
    public record StoredMessage(
            String messageId, String type, String correlationId, Map<String, Object> headers, byte[] body) {}

    private DeadLetters() {}

    public static ConfirmPublisher.SoloOutcome forward(
            Connection connection,
            String deadLetterQueue,
            Delivery delivery,
            String consumer,
            String reason,
            int attempts,
            Duration timeout) {
        AMQP.BasicProperties p = delivery.getProperties();
        Map<String, Object> own = deadLetterHeaders(consumer, reason, attempts);
        own.put(ORIGINAL_EXCHANGE, String.valueOf(delivery.getEnvelope().getExchange()));
        own.put(ORIGINAL_ROUTING_KEY, String.valueOf(delivery.getEnvelope().getRoutingKey()));
        if (p.getExpiration() != null) {
            own.put(ORIGINAL_EXPIRATION, p.getExpiration());
        }
        if (p.getUserId() != null) {
            own.put(ORIGINAL_USER_ID, p.getUserId());
        }
        String messageId = p.getMessageId() != null ? p.getMessageId() : "no-message-id";
        AMQP.BasicProperties.Builder base =
                p.builder().expiration(null).userId(null).deliveryMode(2).messageId(messageId);
        return publish(connection, deadLetterQueue, base, p.getHeaders(), own, delivery.getBody(), timeout);
    }

    /** Dead-letters a message a consumer stored (held) rather than one the broker delivered. */
    public static ConfirmPublisher.SoloOutcome forwardStored(
            Connection connection,
            String deadLetterQueue,
            StoredMessage message,
            String consumer,
            String reason,
            int attempts,
            Duration timeout) {
        Map<String, Object> own = deadLetterHeaders(consumer, reason, attempts);
        own.put(HELD, true);
        // a held message passed the consumer's contract check on arrival: its copy keeps the contract's
        // content type and encoding, so a replay from the dead-letter queue passes that check again
        AMQP.BasicProperties.Builder base = new AMQP.BasicProperties.Builder()
                .messageId(message.messageId())
                .type(message.type())
                .correlationId(message.correlationId())
                .contentType(AmqpMessageMapper.CONTENT_TYPE)
                .contentEncoding("utf-8")
                .deliveryMode(2);
        return publish(connection, deadLetterQueue, base, amqpTable(message.headers()), own, message.body(), timeout);
    }

    private static Map<String, Object> deadLetterHeaders(String consumer, String reason, int attempts) {
        Map<String, Object> own = new LinkedHashMap<>();
        String why = reason == null || reason.isBlank() ? "no reason given" : reason;
        own.put(REASON, why.length() > MAX_REASON ? why.substring(0, MAX_REASON) : why);
        own.put(CONSUMER, consumer);
        own.put(ATTEMPTS, attempts);
        own.put(DEAD_LETTERED_AT, Instant.now().toString());
        return own;
    }

    private static ConfirmPublisher.SoloOutcome publish(
            Connection connection,
            String deadLetterQueue,
            AMQP.BasicProperties.Builder base,
            Map<String, Object> original,
            Map<String, Object> own,
            byte[] body,
            Duration timeout) {
        byte[] bytes = body == null ? new byte[0] : body;
        try {
            Map<String, Object> headers = new HashMap<>();
            if (original != null) {
                headers.putAll(original);
            }
            headers.putAll(own);
            AMQP.BasicProperties props = base.headers(headers).build();
            int frameMax = connection.getFrameMax();
            if (frameMax > 0 && props.toFrame(0, bytes.length).size() > frameMax) {
                // the broker would refuse the header frame: keep the message and say what was left out
                Map<String, Object> slim = new HashMap<>(own);
                slim.put(ORIGINAL_HEADERS_DROPPED, "the original headers and these exceed frame_max " + frameMax);
                props = base.headers(slim).build();
            }
            // no body limit of our own: this body was delivered by the broker, so it is within its limit
            return ConfirmPublisher.publishAlone(
                    connection, new OutboundMessage("", deadLetterQueue, props, bytes), timeout, Long.MAX_VALUE);
        } catch (IOException | RuntimeException e) {
            // a closed connection or a header amqp-client cannot write: the caller keeps the message
            return new ConfirmPublisher.SoloOutcome(
                    ErrorCode.CHANNEL_ERROR, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** JSON values (as a consumer stores headers) as AMQP field values amqp-client can write. */
    private static Map<String, Object> amqpTable(Map<String, Object> json) {
        if (json == null) {
            return null;
        }
        Map<String, Object> out = new HashMap<>();
        json.forEach((k, v) -> out.put(k, amqpValue(v)));
        return out;
    }

    private static Object amqpValue(Object v) {
        if (v instanceof BigInteger i) {
            return i.bitLength() < 64 ? (Object) i.longValue() : i.toString();
        }
        if (v instanceof BigDecimal d) {
            // an AMQP decimal is a 32-bit unscaled value and a scale of 0..255
            boolean fits =
                    d.scale() >= 0 && d.scale() <= 255 && d.unscaledValue().bitLength() < 32;
            return fits ? d : d.toString();
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new HashMap<>();
            m.forEach((k, x) -> out.put(String.valueOf(k), amqpValue(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(x -> out.add(amqpValue(x)));
            return out;
        }
        if (v == null || v instanceof String || v instanceof Boolean || v instanceof Integer || v instanceof Long) {
            return v;
        }
        return v.toString();
    }
}
