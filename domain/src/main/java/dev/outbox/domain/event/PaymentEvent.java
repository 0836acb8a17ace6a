package dev.outbox.domain.event;

import java.util.Map;
import java.util.UUID;

/**
 * An event about the order's payment: which payment, and the whole amount in the order's
 * currency, as decimal text. Its payload lists those, then when it happened under the event's own
 * name ({@link #occurredAtField()}).
 */
public sealed interface PaymentEvent extends OrderEvent permits PaymentCaptured, PaymentRefunded {
    UUID paymentId();

    String amount();

    String currency();

    /** The payload field that holds {@link #occurredAt()}, e.g. {@code capturedAt}. */
    String occurredAtField();

    @Override
    default void putFields(Map<String, Object> p) {
        p.put("paymentId", paymentId().toString());
        p.put("amount", amount());
        p.put("currency", currency());
        p.put(occurredAtField(), occurredAt().toString());
    }
}
