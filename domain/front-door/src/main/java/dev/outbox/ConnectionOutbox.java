package dev.outbox;

import java.sql.Connection;
import java.util.UUID;

/**
 * Records messages on a JDBC connection the caller holds, inside the transaction the caller began
 * on it: the outbox for a service on plain JDBC, and what every adapter to a transaction stack
 * comes down to. One {@code INSERT} on that connection, nothing else: it never begins, commits,
 * rolls back or closes anything, so the message row commits or rolls back with the caller's own
 * rows, and the relay publishes it after the commit.
 *
 * <pre>
 * ConnectionOutbox outbox = OutboxPersistence.jdbc();
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     try {
 *         insertInvoice(c, invoice);                     // the service's own statement
 *         outbox.record(c, new MessageType("invoice.issued", 1), Aggregate.of("invoice", id, 1), payload, context);
 *         c.commit();
 *     } catch (SQLException | RuntimeException e) {
 *         c.rollback();                                  // neither row exists
 *         throw e;
 *     }
 * }
 * </pre>
 *
 * The payload is checked against its contract ({@code contracts/<type>/v<version>.schema.json} on
 * the classpath) before anything is written. Thread-safe; one instance serves a whole service.
 */
public interface ConnectionOutbox {
    /**
     * Records one message on {@code connection}, in the transaction open on it.
     *
     * @param payload the message body: a JSON-ready tree (maps, lists, strings, numbers, booleans)
     *     or any object Jackson serialises
     * @return the message id: the AMQP {@code messageId} consumers deduplicate on
     * @throws OutsideTransactionException when {@code connection} is in auto-commit mode, where the
     *     row would commit on its own; nothing was written
     * @throws MessageContractViolationException when the payload breaks its contract or the type
     *     has none; nothing was written, the transaction is as it was, and it must not commit
     *     without the message it was meant to carry
     * @throws OutboxWriteException when the database refused the row (or the connection failed);
     *     the transaction must roll back
     */
    UUID record(Connection connection, MessageType type, Aggregate aggregate, Object payload, MessageContext context);

    /** Records a domain event on {@code connection}: its type, aggregate, version and payload. */
    default UUID record(Connection connection, DomainEvent event, MessageContext context) {
        return record(
                connection,
                event.type(),
                Aggregate.of(event.aggregateType(), event.aggregateId().toString(), event.aggregateVersion()),
                event.payload(),
                context);
    }
}
