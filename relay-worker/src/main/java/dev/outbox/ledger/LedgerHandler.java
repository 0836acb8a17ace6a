package dev.outbox.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.outbox.domain.TimeOrderedIds;
import dev.outbox.domain.event.EventType;
import dev.outbox.domain.event.MessageContract;
import dev.outbox.messaging.consume.InboundMessage;
import dev.outbox.messaging.consume.MessageHandler;
import dev.outbox.messaging.consume.NonRetryableMessageException;
import dev.outbox.persistence.ledger.LedgerEntry;
import dev.outbox.persistence.ledger.LedgerMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sample consumer's effect: one ledger entry per captured payment and one per refund. It
 * sees every order event (its queue binds them all, so ordered apply can see every version);
 * events other than payments change nothing in the ledger.
 */
@Singleton
public class LedgerHandler implements MessageHandler {
    private static final Logger LOG = LoggerFactory.getLogger(LedgerHandler.class);

    private final LedgerMapper ledger;
    private final Clock clock;

    @Inject
    public LedgerHandler(LedgerMapper ledger, Clock clock) {
        this.ledger = ledger;
        this.clock = clock;
    }

    @Override
    public void apply(InboundMessage message) throws NonRetryableMessageException {
        String entryType;
        if (EventType.PAYMENT_CAPTURED.messageType().equals(message.messageType())) {
            entryType = LedgerEntry.CAPTURE;
        } else if (EventType.PAYMENT_REFUNDED.messageType().equals(message.messageType())) {
            entryType = LedgerEntry.REFUND;
        } else {
            return;
        }
        Map<?, ?> payload = validPayload(message);
        LedgerEntry entry = new LedgerEntry(TimeOrderedIds.next(clock.millis()),
                UUID.fromString((String) payload.get("orderId")), UUID.fromString((String) payload.get("paymentId")),
                entryType, new BigDecimal((String) payload.get("amount")), (String) payload.get("currency"),
                message.messageId(), null);
        if (ledger.insertIfAbsent(entry) == 0) {
            // a different message asked for the same effect: the business key already holds it
            LOG.info("ledger already has a {} entry for payment {}; message_id={} changes nothing", entryType,
                    entry.paymentId(), message.messageId());
        }
    }

    private static Map<?, ?> validPayload(InboundMessage message) throws NonRetryableMessageException {
        Object payload;
        try {
            payload = message.payload();
        } catch (JsonProcessingException e) {
            throw new NonRetryableMessageException("body is not JSON");
        }
        List<String> violations = MessageContract.violations(message.messageType(), message.messageVersion(),
                message.aggregateId(), payload);
        if (!violations.isEmpty()) {
            throw new NonRetryableMessageException("breaks its contract: " + violations);
        }
        return (Map<?, ?>) payload;
    }
}
