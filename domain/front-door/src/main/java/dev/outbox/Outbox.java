package dev.outbox;

import java.util.UUID;

/**
 * Records messages in the caller's database transaction: the write side of the outbox, for any
 * service on MyBatis-Guice. Call it inside the {@code @Transactional} method that changes your own
 * tables; the message row commits or rolls back with them, and the relay publishes it after the
 * commit. A call outside a transaction is refused, since the message would then commit on its own.
 *
 * <pre>
 * &#64;Transactional
 * public Invoice issue(...) {
 *     invoices.insert(invoice);
 *     outbox.record(new MessageType("invoice.issued", 1), Aggregate.of("invoice", id, 1), payload, context);
 * }
 * </pre>
 *
 * The payload is checked against its contract ({@code contracts/<type>/v<version>.schema.json}
 * on the classpath) before the row is written; a message type without a contract is refused.
 * Get an instance from the Guice injector built with {@link OutboxPersistence#module}. This
 * interface, the value types beside it and {@link OutboxException} are the whole write side a
 * service compiles against; the implementation is found at run time.
 */
public interface Outbox {
    /**
     * Records one message.
     *
     * @param payload the message body: a JSON-ready tree (maps, lists, strings, numbers, booleans)
     *     or any object Jackson serialises. It is stored as PostgreSQL {@code jsonb}: the same
     *     JSON value, not the same bytes (keys reordered, spacing its own, one of duplicate keys
     *     kept), and every publication of the message carries that stored text; consumers read
     *     it as JSON, never compare bytes
     * @return the message id: the AMQP {@code messageId} consumers deduplicate on
     * @throws MessageContractViolationException when the payload breaks its contract or the type
     *     has none; your transaction must roll back
     * @throws OutsideTransactionException when no transaction is active; nothing was written
     */
    UUID record(MessageType type, Aggregate aggregate, Object payload, MessageContext context);

    /** Records a domain event: its type, aggregate, version and payload. */
    default UUID record(DomainEvent event, MessageContext context) {
        return record(
                event.type(),
                Aggregate.of(event.aggregateType(), event.aggregateId().toString(), event.aggregateVersion()),
                event.payload(),
                context);
    }
}
