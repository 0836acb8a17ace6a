package dev.outbox.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.Outbox;
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
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A Spring service records in its own transaction, begun by {@code @Transactional} on a bean or by
 * a {@code TransactionTemplate}, on real PostgreSQL: the message commits and rolls back with the
 * service's row written through {@code JdbcTemplate}, is refused outside a transaction, and the
 * service's own failing statement stays Spring's own exception.
 */
class SpringOutboxIT {
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final String TABLE = "spring_adopter_invoices";

    private final TestDatabase db = TestDatabase.get();
    private AnnotationConfigApplicationContext context;
    private Invoicing invoicing;
    private TransactionTemplate transactions;
    private JdbcTemplate jdbc;
    private Outbox outbox;

    /** A service's application service, as Spring proxies it. */
    public static class Invoicing {
        private final JdbcTemplate jdbc;
        private final Outbox outbox;

        public Invoicing(JdbcTemplate jdbc, Outbox outbox) {
            this.jdbc = jdbc;
            this.outbox = outbox;
        }

        @Transactional
        public void issue(String id, DomainEvent event) {
            jdbc.update("INSERT INTO " + TABLE + " (id, amount) VALUES (?, 42)", id);
            outbox.record(event, MessageContext.none());
        }

        @Transactional
        public void issueThenFail(String id, DomainEvent event) {
            issue(id, event);
            throw new IllegalStateException("the service's own failure, after the outbox call");
        }

        @Transactional
        public void recordThenIssue(String id, DomainEvent event) {
            outbox.record(event, MessageContext.none());
            jdbc.update("INSERT INTO " + TABLE + " (id, amount) VALUES (?, 42)", id);
        }
    }

    /** The service's wiring: its data source, its transaction manager, the outbox as a bean. */
    @Configuration
    @EnableTransactionManagement
    static class Wiring {
        /** The tests' pool, shared by every test of the JVM: not Spring's to close. */
        @Bean(destroyMethod = "")
        DataSource dataSource() {
            return TestDatabase.get().dataSource();
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        Outbox outbox(DataSource dataSource) {
            return SpringOutbox.on(dataSource);
        }

        @Bean
        Invoicing invoicing(JdbcTemplate jdbc, Outbox outbox) {
            return new Invoicing(jdbc, outbox);
        }
    }

    @BeforeEach
    void aSpringService() {
        db.reset();
        db.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id text PRIMARY KEY, amount int NOT NULL)");
        context = new AnnotationConfigApplicationContext(Wiring.class);
        invoicing = context.getBean(Invoicing.class);
        transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        jdbc = context.getBean(JdbcTemplate.class);
        outbox = context.getBean(Outbox.class);
    }

    @AfterEach
    void closeAndDrop() {
        if (context != null) {
            context.close();
        }
        db.execute("DROP TABLE IF EXISTS " + TABLE);
    }

    private static DomainEvent orderPlaced() {
        return Order.place(
                        UUID.randomUUID(),
                        "cust-spring",
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
    void theMessageCommitsWithTheServicesRowUnderTransactionalAndUnderATemplate() {
        invoicing.issue("inv-1", orderPlaced());
        transactions.executeWithoutResult(status -> {
            jdbc.update("INSERT INTO " + TABLE + " (id, amount) VALUES ('inv-2', 42)");
            outbox.record(orderPlaced(), MessageContext.none());
        });

        assertEquals(List.of(2L, 2L), invoicesAndMessages());
    }

    @Test
    void theMessageRollsBackWithTheServicesRowAlsoWhenTheRollbackComesAfterIt() {
        assertThrows(IllegalStateException.class, () -> invoicing.issueThenFail("inv-1", orderPlaced()));
        transactions.executeWithoutResult(status -> {
            jdbc.update("INSERT INTO " + TABLE + " (id, amount) VALUES ('inv-2', 42)");
            outbox.record(orderPlaced(), MessageContext.none());
            status.setRollbackOnly();
        });

        assertEquals(List.of(0L, 0L), invoicesAndMessages());
    }

    @Test
    void outsideASpringTransactionNothingIsWritten() {
        assertThrows(OutsideTransactionException.class, () -> outbox.record(orderPlaced(), MessageContext.none()));
        // PROPAGATION_SUPPORTS: a transaction scope, no transaction
        TransactionTemplate supports = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        supports.setPropagationBehavior(TransactionTemplate.PROPAGATION_SUPPORTS);
        assertThrows(
                OutsideTransactionException.class,
                () -> supports.executeWithoutResult(status -> outbox.record(orderPlaced(), MessageContext.none())));

        assertEquals(List.of(0L, 0L), invoicesAndMessages());
    }

    @Test
    void theServicesOwnFailingStatementSurfacesAsSpringsOwnException() {
        invoicing.issue("inv-1", orderPlaced());

        assertThrows(DuplicateKeyException.class, () -> invoicing.recordThenIssue("inv-1", orderPlaced()));

        assertEquals(List.of(1L, 1L), invoicesAndMessages(), "the second message rolled back with the failed insert");
    }

    /** The outbox's own row refused: the front door's exception through Spring's proxy and template, both rolled back. */
    @Test
    void theOutboxsOwnFailureIsTheFrontDoorsException() {
        OutboxWriteException refused = assertThrows(
                OutboxWriteException.class,
                () -> transactions.executeWithoutResult(status -> {
                    jdbc.update("INSERT INTO " + TABLE + " (id, amount) VALUES ('inv-1', 42)");
                    jdbc.execute("SET LOCAL search_path TO pg_catalog"); // no message_outbox there
                    outbox.record(orderPlaced(), MessageContext.none());
                }));

        assertEquals("42P01", refused.sqlState(), refused.getMessage());
        assertEquals(List.of(0L, 0L), invoicesAndMessages());
    }
}
