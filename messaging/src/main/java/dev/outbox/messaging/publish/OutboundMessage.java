package dev.outbox.messaging.publish;

import com.rabbitmq.client.AMQP;
import java.util.Objects;

/** An outbox row mapped to the AMQP wire contract, ready to publish. */
public record OutboundMessage(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body) {
    public OutboundMessage {
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(routingKey, "routingKey");
        Objects.requireNonNull(properties, "properties");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(properties.getMessageId(), "messageId");
    }

    public String messageId() {
        return properties.getMessageId();
    }
}
