package dev.outbox.sample.shipments;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.consumer.InboundMessage;
import dev.outbox.consumer.MessageHandler;
import dev.outbox.consumer.NonRetryableMessageException;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.UUID;

/**
 * Records an {@code order.shipped} message (contract {@code contracts/order.shipped/v1}) as a row
 * of {@code shipments}, in the transaction that records the message as processed. The runtime
 * checked the body against the contract before this runs; what fails here is a body the contract
 * let through but a row cannot hold, which can never succeed: it is dead-lettered with the reason.
 */
@Singleton
public class ShipmentsHandler implements MessageHandler {
    static final String ORDER_SHIPPED = "order.shipped";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ShipmentMapper shipments;

    @Inject
    public ShipmentsHandler(ShipmentMapper shipments) {
        this.shipments = shipments;
    }

    @Override
    public void apply(InboundMessage message) {
        if (!ORDER_SHIPPED.equals(message.messageType())) {
            // its queue binds order.shipped only; anything else is a binding changed by hand
            throw new NonRetryableMessageException("shipments consumes order.shipped, not " + message.messageType());
        }
        JsonNode body;
        try {
            body = JSON.readTree(message.bodyText());
        } catch (JsonProcessingException e) {
            throw new NonRetryableMessageException("body is not JSON", e);
        }
        try {
            shipments.insertIfAbsent(
                    UUID.fromString(body.path("orderId").asText()),
                    body.path("carrier").asText(),
                    body.path("trackingNumber").asText(),
                    OffsetDateTime.parse(body.path("shippedAt").asText()),
                    message.messageId());
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw new NonRetryableMessageException("order.shipped body cannot be recorded: " + e.getMessage(), e);
        }
    }
}
