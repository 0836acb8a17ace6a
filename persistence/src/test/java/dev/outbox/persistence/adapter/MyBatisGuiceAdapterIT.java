package dev.outbox.persistence.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxPersistence;
import dev.outbox.OutboxWriteException;
import dev.outbox.OutsideTransactionException;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.testkit.TestDatabase;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Currency;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.exceptions.PersistenceException;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mybatis.guice.MyBatisModule;
import org.mybatis.guice.transactional.Transactional;

/**
 * A MyBatis-Guice service with a {@code MyBatisModule} of its own, its own mapper and its own
 * table, adds the outbox beside that module ({@link OutboxPersistence#myBatisGuice}): Guice takes
 * both, and the message commits and rolls back with the service's row in the service's own
 * {@code @Transactional} method, on real PostgreSQL.
 */
class MyBatisGuiceAdapterIT {
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final String TABLE = "mybatis_adopter_invoices";

    private final TestDatabase db = TestDatabase.get();

    /** The service's own mapper, on its own table. */
    public interface InvoiceMapper {
        @Insert("INSERT INTO " + TABLE + " (id, amount) VALUES (#{id}, 42)")
        void insert(@Param("id") String id);
    }

    /** The service's application service: its row and its message in one transaction. */
    public static class Invoicing {
        private final InvoiceMapper invoices;
        private final Outbox outbox;

        @Inject
        Invoicing(InvoiceMapper invoices, Outbox outbox) {
            this.invoices = invoices;
            this.outbox = outbox;
        }

        @Transactional
        public void issue(String id, DomainEvent event) {
            invoices.insert(id);
            outbox.record(event, MessageContext.none());
        }

        @Transactional
        public void issueThenFail(String id, DomainEvent event) {
            invoices.insert(id);
            outbox.record(event, MessageContext.none());
            throw new IllegalStateException("the service's own failure, after the outbox call");
        }

        @Transactional
        public void recordThenIssue(String id, DomainEvent event) {
            outbox.record(event, MessageContext.none());
            invoices.insert(id);
        }

        /** A transaction whose one write is the message. */
        @Transactional
        public void recordOnly(DomainEvent event) {
            outbox.record(event, MessageContext.none());
        }

        public void recordOutsideATransaction(DomainEvent event) {
            outbox.record(event, MessageContext.none());
        }
    }

    private Invoicing invoicing;

    /**
     * MyBatis's JDBC transactions, as a service may configure them: no auto-commit reset when the
     * session closes, so nothing commits by accident there (the driver commits an open transaction
     * when auto-commit is switched back on); a session that did not commit is rolled back by the pool.
     */
    public static class NoAutoCommitResetOnClose extends JdbcTransactionFactory {
        @Override
        public org.apache.ibatis.transaction.Transaction newTransaction(
                DataSource ds, org.apache.ibatis.session.TransactionIsolationLevel level, boolean autoCommit) {
            return new org.apache.ibatis.transaction.jdbc.JdbcTransaction(ds, level, autoCommit, true);
        }
    }

    @BeforeEach
    void aServiceWithItsOwnMyBatisModule() {
        db.reset();
        db.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id text PRIMARY KEY, amount int NOT NULL)");
        DataSource dataSource = db.dataSource();
        Injector injector = Guice.createInjector(
                new MyBatisModule() {
                    @Override
                    protected void initialize() {
                        environmentId("the-service");
                        bindDataSourceProvider((jakarta.inject.Provider<DataSource>) () -> dataSource);
                        bindTransactionFactoryType(NoAutoCommitResetOnClose.class);
                        addMapperClass(InvoiceMapper.class);
                    }
                },
                OutboxPersistence.myBatisGuice());
        invoicing = injector.getInstance(Invoicing.class);
    }

    @AfterEach
    void dropIt() {
        db.execute("DROP TABLE IF EXISTS " + TABLE);
    }

    private static DomainEvent orderPlaced() {
        return Order.place(
                        UUID.randomUUID(),
                        "cust-mybatis",
                        null,
                        EUR,
                        List.of(new OrderLine("SKU-1", 2, Money.parse("21.25", EUR))),
                        Instant.now().truncatedTo(ChronoUnit.MICROS))
                .events()
                .get(0);
    }

    private List<Long> invoicesAndMessages() {
        return List.of(db.count("SELECT count(*) FROM " + TABLE), db.count("SELECT count(*) FROM message_outbox"));
    }

    @Test
    void theMessageCommitsWithTheServicesRow() {
        DomainEvent placed = orderPlaced();

        invoicing.issue("inv-1", placed);

        assertEquals(List.of(1L, 1L), invoicesAndMessages());
        assertEquals(
                placed.aggregateId().toString(),
                db.scalar("SELECT aggregate_id FROM message_outbox WHERE message_type = 'order.created'"));
    }

    /**
     * mybatis-guice commits a session only when one of its statements wrote: the message alone
     * must count as a write, beside the service's module and in the outbox's own.
     */
    @Test
    void aTransactionWhoseOnlyWriteIsTheMessageCommitsIt() {
        invoicing.recordOnly(orderPlaced());

        assertEquals(List.of(0L, 1L), invoicesAndMessages());

        Invoicing onTheOutboxsModule = Guice.createInjector(OutboxPersistence.module(
                        db.dataSource(), java.time.Duration.ofSeconds(30), InvoiceMapper.class))
                .getInstance(Invoicing.class);
        onTheOutboxsModule.recordOnly(orderPlaced());

        assertEquals(List.of(0L, 2L), invoicesAndMessages());
    }

    /** The outbox's own insert refused (a version gap): the front door's exception, the transaction rolled back. */
    @Test
    void theOutboxsOwnFailureIsTheFrontDoorsException() {
        Order.Transition placed = Order.place(
                UUID.randomUUID(),
                "cust-mybatis",
                null,
                EUR,
                List.of(new OrderLine("SKU-1", 2, Money.parse("21.25", EUR))),
                Instant.now().truncatedTo(ChronoUnit.MICROS));
        DomainEvent capturedBeforeItsOrder = placed.order()
                .capture(Money.parse("42.50", EUR), UUID.randomUUID(), Instant.now())
                .events()
                .get(0);

        OutboxWriteException refused =
                assertThrows(OutboxWriteException.class, () -> invoicing.issue("inv-1", capturedBeforeItsOrder));

        assertEquals("23514", refused.sqlState(), refused.getMessage());
        assertEquals(List.of(0L, 0L), invoicesAndMessages());

        // the same under the outbox's own module, whose translation gives the service's statements
        // the persistence layer's exceptions: the outbox's row still fails as the front door's
        Invoicing onTheOutboxsModule = Guice.createInjector(OutboxPersistence.module(
                        db.dataSource(), java.time.Duration.ofSeconds(30), InvoiceMapper.class))
                .getInstance(Invoicing.class);
        refused = assertThrows(
                OutboxWriteException.class, () -> onTheOutboxsModule.issue("inv-2", capturedBeforeItsOrder));
        assertEquals("23514", refused.sqlState(), refused.getMessage());
        assertEquals(List.of(0L, 0L), invoicesAndMessages());
    }

    @Test
    void theMessageRollsBackWithTheServicesRowWhenTheServiceFailsAfterIt() {
        assertThrows(IllegalStateException.class, () -> invoicing.issueThenFail("inv-1", orderPlaced()));

        assertEquals(List.of(0L, 0L), invoicesAndMessages());
    }

    @Test
    void outsideTheServicesTransactionNothingIsWritten() {
        assertThrows(OutsideTransactionException.class, () -> invoicing.recordOutsideATransaction(orderPlaced()));

        assertEquals(List.of(0L, 0L), invoicesAndMessages());
    }

    @Test
    void theServicesOwnFailingStatementSurfacesAsItsOwnStacksException() {
        invoicing.issue("inv-1", orderPlaced());

        PersistenceException duplicate =
                assertThrows(PersistenceException.class, () -> invoicing.recordThenIssue("inv-1", orderPlaced()));

        assertTrue(
                duplicate.getClass().getName().startsWith("org.apache.ibatis."),
                "MyBatis's own exception, not one the outbox translated it to: " + duplicate);
        assertFalse(duplicate.getCause() instanceof OutboxException, duplicate.toString());
        assertEquals(List.of(1L, 1L), invoicesAndMessages(), "the second message rolled back with the failed insert");
    }
}
