package dev.outbox.messaging.publish;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import com.rabbitmq.client.impl.AMQImpl;
import com.rabbitmq.client.impl.Frame;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Decides, before a publish sequence number is taken, whether a message can be sent at all.
 *
 * <p>amqp-client advances a channel's publish sequence number <em>before</em> it encodes a
 * message, and then throws {@link IllegalArgumentException} from {@code basicPublish} for a short
 * string over 255 bytes, a header value the protocol has no type for, or a content header larger
 * than the connection's {@code frame_max}; the channel stays open. A publisher keyed by sequence
 * numbers would then attribute every later confirm to the message before it. So every limit the
 * client or the broker enforces on a single message is checked here first, with an answer that
 * names the field: the protocol's limits field by field, then the client's own encoder as the
 * final word on the method and content-header frames (it is what {@code basicPublish} runs), then
 * the broker's message size limit, which the client does not know and must be configured.
 */
public final class MessageEncoding {
    /** AMQP 0-9-1 short strings (property values, header names, exchange, routing key). */
    static final int SHORT_STRING_MAX = 255;
    /** Bytes of a frame that are not payload: type, channel, size, and the end octet. */
    static final int FRAME_OVERHEAD = 8;

    private MessageEncoding() {}

    /**
     * Why {@code message} cannot be published on a connection with {@code frameMax} (0 = no
     * limit) to a broker that refuses bodies over {@code maxBodyBytes}; empty when it can.
     */
    public static Optional<String> problem(OutboundMessage message, int frameMax, long maxBodyBytes) {
        Optional<String> p = shortString("exchange", message.exchange())
                .or(() -> shortString("routing key", message.routingKey()))
                .or(() -> properties(message.properties()));
        if (p.isPresent()) {
            return p;
        }
        // the client's own encoders, exactly as basicPublish runs them, for anything the checks
        // above do not name (a future property, an encoder rule we did not restate)
        int headerFrameBytes;
        try {
            new AMQImpl.Basic.Publish(0, message.exchange(), message.routingKey(), true, false).toFrame(0);
            Frame header = ((com.rabbitmq.client.impl.AMQContentHeader) message.properties())
                    .toFrame(0, message.body().length);
            headerFrameBytes = header.size();
        } catch (IllegalArgumentException | IOException e) {
            return Optional.of("the AMQP client cannot encode this message: " + e.getMessage());
        }
        if (frameMax > 0 && headerFrameBytes > frameMax) {
            return Optional.of("its properties and headers take " + headerFrameBytes
                    + " bytes, over the connection's frame_max of " + frameMax
                    + " bytes (one content-header frame must hold them all)");
        }
        if (message.body().length > maxBodyBytes) {
            return Optional.of(
                    "its body of " + message.body().length + " bytes is over the broker's message size limit of "
                            + maxBodyBytes + " bytes (OUTBOX_AMQP_MAX_MESSAGE_SIZE)");
        }
        return Optional.empty();
    }

    private static Optional<String> properties(AMQP.BasicProperties p) {
        return shortString("property contentType", p.getContentType())
                .or(() -> shortString("property contentEncoding", p.getContentEncoding()))
                .or(() -> shortString("property correlationId", p.getCorrelationId()))
                .or(() -> shortString("property replyTo", p.getReplyTo()))
                .or(() -> shortString("property expiration", p.getExpiration()))
                .or(() -> shortString("property messageId", p.getMessageId()))
                .or(() -> shortString("property type", p.getType()))
                .or(() -> shortString("property userId", p.getUserId()))
                .or(() -> shortString("property appId", p.getAppId()))
                .or(() -> shortString("property clusterId", p.getClusterId()))
                .or(() -> p.getHeaders() == null ? Optional.empty() : table("header ", p.getHeaders()));
    }

    private static Optional<String> shortString(String field, String value) {
        if (value == null) {
            return Optional.empty();
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > SHORT_STRING_MAX) {
            return Optional.of(
                    field + " is " + bytes + " bytes of UTF-8, over AMQP's short-string limit of " + SHORT_STRING_MAX);
        }
        return Optional.empty();
    }

    private static Optional<String> table(String path, Map<String, Object> table) {
        for (Map.Entry<String, Object> e : table.entrySet()) {
            String name = path + "'" + abbreviate(e.getKey()) + "'";
            Optional<String> p = shortString(name + "'s name", e.getKey()).or(() -> value(name, e.getValue()));
            if (p.isPresent()) {
                return p;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> value(String name, Object v) {
        if (v == null
                || v instanceof String
                || v instanceof LongString
                || v instanceof Integer
                || v instanceof Long
                || v instanceof Short
                || v instanceof Byte
                || v instanceof Boolean
                || v instanceof Double
                || v instanceof Float
                || v instanceof Date
                || v instanceof byte[]) {
            return Optional.empty();
        }
        if (v instanceof BigDecimal d) {
            if (d.scale() < 0 || d.scale() > 255 || d.unscaledValue().bitLength() > 31) {
                return Optional.of(name + " is the decimal " + abbreviate(d.toPlainString())
                        + ", which AMQP's decimal (scale 0-255, 32-bit digits) cannot hold");
            }
            return Optional.empty();
        }
        if (v instanceof java.math.BigInteger i) {
            return Optional.of(
                    name + " is the integer " + abbreviate(i.toString()) + ", outside AMQP's signed 64-bit range");
        }
        if (v instanceof Map<?, ?> m) {
            @SuppressWarnings("unchecked")
            Map<String, Object> nested = (Map<String, Object>) m;
            return table(name + ".", nested);
        }
        if (v instanceof Object[] array) {
            return value(name, java.util.Arrays.asList(array));
        }
        if (v instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                Optional<String> p = value(name + "[" + i + "]", list.get(i));
                if (p.isPresent()) {
                    return p;
                }
            }
            return Optional.empty();
        }
        return Optional.of(name + " is a " + v.getClass().getSimpleName() + ", a type AMQP has no field for");
    }

    /** Field names and values go into {@code last_error_message}: keep them readable. */
    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 40) + "…(" + s.length() + " chars)";
    }
}
