package dev.outbox.jooq;

import dev.outbox.Aggregate;
import dev.outbox.ConnectionOutbox;
import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.OutboxPersistence;
import java.time.Clock;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * The outbox in a jOOQ transaction: records on the connection the transaction's {@link DSLContext}
 * holds, so the message row commits and rolls back with what that transaction writes. The outbox
 * begins, commits and rolls back nothing.
 *
 * <pre>
 * dsl.transaction(trx -&gt; {
 *     trx.dsl().insertInto(INVOICES).set(...).execute();
 *     outbox.record(trx.dsl(), new MessageType("invoice.issued", 1), Aggregate.unversioned("invoice", id), payload, context);
 * });
 * </pre>
 *
 * A {@link DSLContext} outside a transaction hands out connections in auto-commit mode, where the
 * row would commit on its own: {@code record} is refused there ({@link
 * dev.outbox.OutsideTransactionException}) and writes nothing. Thread-safe; one per service.
 */
public final class JooqOutbox {
    private final ConnectionOutbox jdbc;

    /** Ids and timestamps from the system clock, in UTC. */
    public JooqOutbox() {
        this(Clock.systemUTC());
    }

    /** Ids and timestamps from {@code clock}. */
    public JooqOutbox(Clock clock) {
        this.jdbc = OutboxPersistence.jdbc(clock);
    }

    /**
     * Records one message in {@code transaction}'s transaction: the {@link DSLContext} a jOOQ
     * transaction hands its block ({@code trx.dsl()}).
     *
     * @return the message id, the AMQP {@code messageId} consumers deduplicate on
     * @throws dev.outbox.OutboxException as {@link ConnectionOutbox#record} does
     */
    public UUID record(
            DSLContext transaction, MessageType type, Aggregate aggregate, Object payload, MessageContext context) {
        return transaction.connectionResult(connection -> jdbc.record(connection, type, aggregate, payload, context));
    }

    /** Records a domain event in {@code transaction}'s transaction. */
    public UUID record(DSLContext transaction, DomainEvent event, MessageContext context) {
        return transaction.connectionResult(connection -> jdbc.record(connection, event, context));
    }
}
