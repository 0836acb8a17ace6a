package dev.outbox.domain.event;

import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The event catalogue: every message type this service emits, the contract version it is
 * written at, and where it goes. The routing key is the message type (see the contract); all
 * order events go to one durable topic exchange.
 */
public enum EventType {
    ORDER_CREATED("order.created", 1),
    PAYMENT_CAPTURED("payment.captured", 1),
    ORDER_CANCELLED("order.cancelled", 1),
    PAYMENT_REFUNDED("payment.refunded", 1);

    /** The topic exchange every order event is published to. */
    public static final String ORDERS_EXCHANGE = "orders.events";

    private static final Map<String, EventType> BY_MESSAGE_TYPE = Arrays.stream(values())
            .collect(Collectors.toUnmodifiableMap(EventType::messageType, Function.identity()));

    private final String messageType;
    private final int messageVersion;

    EventType(String messageType, int messageVersion) {
        this.messageType = messageType;
        this.messageVersion = messageVersion;
    }

    public String messageType() {
        return messageType;
    }

    /** The contract version new events of this type are written at. */
    public int messageVersion() {
        return messageVersion;
    }

    public String exchange() {
        return ORDERS_EXCHANGE;
    }

    public String routingKey() {
        return messageType;
    }

    public static Optional<EventType> byMessageType(String messageType) {
        return Optional.ofNullable(BY_MESSAGE_TYPE.get(messageType));
    }
}
