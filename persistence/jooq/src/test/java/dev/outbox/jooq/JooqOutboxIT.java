package dev.outbox.jooq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.OutboxWriteException;
import dev.outbox.OutsideTransactionException;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.testkit.TestDatabase;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Currency;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.IntegrityConstraintViolationException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A jOOQ service records in its own {@code DSLContext.transaction}, on real PostgreSQL: the message
 * commits and rolls back with the service's row, is refused outside a transaction, and the
 * service's own failing statement stays jOOQ's own exception.
 */
class JooqOutboxIT {
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final String TABLE = "jooq_adopter_invoices";

    private final TestDatabase db = TestDatabase.get();
    private final JooqOutbox outbox = new JooqOutbox();
    private DSLContext dsl;

    @BeforeEach
    void aJooqService() {
        db.reset();
        db.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id text PRIMARY KEY, amount int NOT NULL)");
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    }

    @AfterEach
    void dropIt() {
        db.execute("DROP TABLE IF EXISTS " + TABLE);
    }

    private static DomainEvent orderPlaced() {
        return Order.place(
                        UUID.randomUUID(),
                        "cust-jooq",
                        null,
                        EUR,
                        List.of(new OrderLine("SKU-1", 2, Money.parse("21.25", EUR))),
                        Instant.now().truncatedTo(ChronoUnit.MICROS))
                .events()
                .get(0);
    }

    private static void insertInvoice(DSLContext trx, String id) {
        trx.insertInto(DSL.table(TABLE), DSL.field("id"), DSL.field("amount"))
                .values(id, 42)
                .execute();
    }

    private List<Long> invoicesAndMessages() {
        return List.of(db.count("SELECT count(*) FROM " + TABLE), db.count("SELECT count(*) FROM message_outbox"));
    }

    @Test
    void theMessageCommitsWithTheServicesRow() {
        dsl.transaction(trx -> {
            insertInvoice(trx.dsl(), "inv-1");
            outbox.record(trx.dsl(), orderPlaced(), MessageContext.none());
        });

        assertEquals(List.of(1L, 1L), invoicesAndMessages());
    }

    @Test
    void theMessageRollsBackWithTheServicesRowAlsoWhenTheFailureComesAfterIt() {
        assertThrows(
                IllegalStateException.class,
                () -> dsl.transaction(trx -> {
                    insertInvoice(trx.dsl(), "inv-1");
                    outbox.record(trx.dsl(), orderPlaced(), MessageContext.none());
                    throw new IllegalStateException("the service's own failure, after the outbox call");
                }));

        assertEquals(List.of(0L, 0L), invoicesAndMessages());
    }

    @Test
    void outsideAJooqTransactionNothingIsWritten() {
        assertThrows(OutsideTransactionException.class, () -> outbox.record(dsl, orderPlaced(), MessageContext.none()));

        assertEquals(List.of(0L, 0L), invoicesAndMessages());
    }

    @Test
    void theServicesOwnFailingStatementSurfacesAsJooqsOwnException() {
        dsl.transaction(trx -> insertInvoice(trx.dsl(), "inv-1"));

        assertThrows(
                IntegrityConstraintViolationException.class,
                () -> dsl.transaction(trx -> {
                    outbox.record(trx.dsl(), orderPlaced(), MessageContext.none());
                    insertInvoice(trx.dsl(), "inv-1");
                }));

        assertEquals(List.of(1L, 0L), invoicesAndMessages(), "the message rolled back with the failed insert");
    }

    /** The outbox's own row refused: the front door's exception through jOOQ's transaction, which rolls back. */
    @Test
    void theOutboxsOwnFailureIsTheFrontDoorsException() {
        OutboxWriteException refused = assertThrows(
                OutboxWriteException.class,
                () -> dsl.transaction(trx -> {
                    insertInvoice(trx.dsl(), "inv-1");
                    trx.dsl().execute("SET LOCAL search_path TO pg_catalog"); // no message_outbox there
                    outbox.record(trx.dsl(), orderPlaced(), MessageContext.none());
                }));

        assertEquals("42P01", refused.sqlState(), refused.getMessage());
        assertEquals(List.of(0L, 0L), invoicesAndMessages());
    }
}
