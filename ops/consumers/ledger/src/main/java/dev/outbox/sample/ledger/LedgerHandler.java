package dev.outbox.sample.ledger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.ProcessIds;
import dev.outbox.TimeOrderedIds;
import dev.outbox.consumer.InboundMessage;
import dev.outbox.consumer.MessageHandler;
import dev.outbox.consumer.NonRetryableMessageException;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sample consumer's effect: one ledger entry per captured payment and one per refund. It
 * sees every order event (its queue binds them all, so ordered apply can see every version);
 * events other than payments change nothing in the ledger. Every event it applies, payment or
 * not, is written to {@code ledger_journal} in the same transaction, with the process that
 * applied it: the record from which order and completeness can be checked after the fact.
 */
@Singleton
public class LedgerHandler implements MessageHandler {
    private static final Logger LOG = LoggerFactory.getLogger(LedgerHandler.class);

    /**
     * The message types it books, as the contracts name them ({@code contracts/payment.captured},
     * {@code contracts/payment.refunded}): a consumer knows the wire contract, not the producer's
     * classes.
     */
    static final String PAYMENT_CAPTURED = "payment.captured";

    static final String PAYMENT_REFUNDED = "payment.refunded";

    /** Amounts are read as written: no double in between. */
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private final LedgerMapper ledger;
    private final Clock clock;
    /** Names this process in the journal, as a relay's default id names it: host name and pid. */
    private final String instanceId = ProcessIds.hostAndPid();

    @Inject
    public LedgerHandler(LedgerMapper ledger, Clock clock) {
        this.ledger = ledger;
        this.clock = clock;
    }

    @Override
    public void apply(InboundMessage message) throws NonRetryableMessageException {
        ledger.journal(
                LedgerConsumer.NAME,
                instanceId,
                message.aggregateType(),
                message.aggregateId(),
                message.aggregateVersion(),
                message.messageId(),
                message.messageType());
        String entryType;
        if (PAYMENT_CAPTURED.equals(message.messageType())) {
            entryType = LedgerEntry.CAPTURE;
        } else if (PAYMENT_REFUNDED.equals(message.messageType())) {
            entryType = LedgerEntry.REFUND;
        } else {
            return;
        }
        JsonNode payload = validPayload(message);
        LedgerEntry entry = new LedgerEntry(
                TimeOrderedIds.next(clock.millis()),
                UUID.fromString(payload.get("orderId").asText()),
                UUID.fromString(payload.get("paymentId").asText()),
                entryType,
                new BigDecimal(payload.get("amount").asText()),
                payload.get("currency").asText(),
                message.messageId(),
                null);
        if (ledger.insertIfAbsent(entry) == 0) {
            // a different message asked for the same effect: the business key already holds it
            LOG.info(
                    "ledger already has a {} entry for payment {}; message_id={} changes nothing",
                    entryType,
                    entry.paymentId(),
                    message.messageId());
        }
    }

    /**
     * The body as a tree. The framework's wire contract check ({@code WireContract}) already
     * refused any delivery whose body breaks the schema of its type and version, before this
     * handler ran; what fails here is a body that changed under that check, never a client's.
     */
    private static JsonNode validPayload(InboundMessage message) throws NonRetryableMessageException {
        try {
            JsonNode payload = JSON.readTree(message.bodyText());
            if (payload == null || !payload.isObject()) {
                throw new NonRetryableMessageException("body is not a JSON object");
            }
            return payload;
        } catch (JsonProcessingException e) {
            throw new NonRetryableMessageException("body is not JSON");
        }
    }
}
