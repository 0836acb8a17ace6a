package dev.outbox.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.Aggregate;
import dev.outbox.ConnectionOutbox;
import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.MessageContractViolationException;
import dev.outbox.MessageType;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxPersistence;
import dev.outbox.OutboxWriteException;
import dev.outbox.OutsideTransactionException;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.kernel.json.Json;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Currency;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox on a plain JDBC connection, as a service with no framework writes: its own row and the
 * message in one transaction it began and ends itself, on real PostgreSQL. The message commits
 * and rolls back with the service's row, is refused where it would commit alone, and the
 * service's own failing statement stays the service's own exception.
 */
class JdbcOutboxIT {
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final String TABLE = "jdbc_adopter_invoices";

    private final TestDatabase db = TestDatabase.get();
    private final ConnectionOutbox outbox = OutboxPersistence.jdbc();

    @BeforeEach
    void aServiceTableOfItsOwn() {
        db.reset();
        db.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id text PRIMARY KEY, amount int NOT NULL)");
    }

    @AfterEach
    void dropIt() {
        db.execute("DROP TABLE IF EXISTS " + TABLE);
    }

    private static DomainEvent orderPlaced() {
        return Order.place(
                        UUID.randomUUID(),
                        "cust-jdbc",
                        null,
                        EUR,
                        List.of(new OrderLine("SKU-1", 2, Money.parse("21.25", EUR))),
                        Instant.now().truncatedTo(ChronoUnit.MICROS))
                .events()
                .get(0);
    }

    private static void insertInvoice(Connection c, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (id, amount) VALUES (?, 42)")) {
            ps.setString(1, id);
            ps.executeUpdate();
        }
    }

    private Connection transaction() throws SQLException {
        Connection c = db.dataSource().getConnection();
        c.setAutoCommit(false);
        return c;
    }

    private long invoices() {
        return db.count("SELECT count(*) FROM " + TABLE);
    }

    private long messages() {
        return db.count("SELECT count(*) FROM message_outbox");
    }

    @Test
    void theMessageCommitsWithTheServicesRow() throws Exception {
        DomainEvent placed = orderPlaced();
        UUID id;
        try (Connection c = transaction()) {
            insertInvoice(c, "inv-1");
            id = outbox.record(c, placed, MessageContext.none());
            assertEquals(0, messages(), "nothing visible before the caller commits");
            c.commit();
        }

        assertEquals(1, invoices());
        Map<String, Object> row = db.rows(
                        "SELECT status, message_type, exchange_name, routing_key, aggregate_id, aggregate_version"
                                + " FROM message_outbox WHERE id = ?",
                        id)
                .get(0);
        assertEquals(
                List.of(
                        "PENDING",
                        "order.created",
                        "orders.events",
                        "order.created",
                        placed.aggregateId().toString(),
                        1L),
                List.of(
                        row.get("status"),
                        row.get("message_type"),
                        row.get("exchange_name"),
                        row.get("routing_key"),
                        row.get("aggregate_id"),
                        row.get("aggregate_version")));
    }

    /**
     * The payload column is {@code jsonb} (the outside contract's): it keeps the JSON value the
     * service gave, not its bytes. PostgreSQL orders an object's keys (shorter first), spaces its
     * output its own way and keeps one of duplicate keys; the relay publishes that text, the same
     * on every publication (RelayIT). What the documentation says, this holds.
     */
    @Test
    void thePayloadIsStoredAsTheSameJsonValueNotTheSameBytes() throws Exception {
        DomainEvent placed = orderPlaced();
        String serialised = Json.write(placed.payload());
        UUID id;
        try (Connection c = transaction()) {
            id = outbox.record(c, placed, MessageContext.none());
            c.commit();
        }

        String stored = (String) db.scalar("SELECT payload::text FROM message_outbox WHERE id = ?", id);
        assertEquals(Json.mapper().readTree(serialised), Json.mapper().readTree(stored), "the same JSON value");
        assertNotEquals(serialised, stored, "not the same bytes: jsonb renders its own text");
    }

    @Test
    void theMessageRollsBackWithTheServicesRowAlsoWhenTheRollbackComesAfterIt() throws Exception {
        try (Connection c = transaction()) {
            insertInvoice(c, "inv-1");
            outbox.record(c, orderPlaced(), MessageContext.none());
            c.rollback();
        }
        try (Connection c = transaction()) {
            outbox.record(c, orderPlaced(), MessageContext.none());
            insertInvoice(c, "inv-2");
            c.rollback();
        }

        assertEquals(List.of(0L, 0L), List.of(invoices(), messages()));
    }

    @Test
    void aConnectionInAutoCommitIsRefusedAndNothingIsWritten() throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(true);
            OutsideTransactionException e =
                    assertThrows(OutsideTransactionException.class, () -> outbox.record(c, orderPlaced(), null));
            assertTrue(e.getMessage().contains("auto-commit"), e.getMessage());
        }
        assertEquals(0, messages());
    }

    @Test
    void theServicesOwnFailingStatementSurfacesAsItsOwnException() throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            insertInvoice(c, "inv-1"); // auto-commit: there before
        }
        try (Connection c = transaction()) {
            outbox.record(c, orderPlaced(), MessageContext.none());
            SQLException duplicate = assertThrows(SQLException.class, () -> insertInvoice(c, "inv-1"));
            assertEquals(
                    "23505",
                    duplicate.getSQLState(),
                    "the driver's own exception, as the service's statement threw it");
            c.rollback();
        }
        assertEquals(List.of(1L, 0L), List.of(invoices(), messages()));
    }

    @Test
    void aPayloadThatBreaksItsContractWritesNothingAndLeavesTheTransactionUsable() throws Exception {
        try (Connection c = transaction()) {
            insertInvoice(c, "inv-1");
            MessageContractViolationException e = assertThrows(
                    MessageContractViolationException.class,
                    () -> outbox.record(
                            c,
                            new MessageType("order.created", 1),
                            Aggregate.of("order", UUID.randomUUID().toString(), 1),
                            Map.of("not", "an order"),
                            MessageContext.none()));
            assertFalse(e.violations().isEmpty());
            // nothing was sent to the database: the caller's transaction is not aborted
            insertInvoice(c, "inv-2");
            c.commit();
        }
        assertEquals(List.of(2L, 0L), List.of(invoices(), messages()));
    }

    @Test
    void aRowTheDatabaseRefusesIsAnOutboxExceptionNamingItsSqlState() throws Exception {
        try (Connection c = transaction()) {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL search_path TO pg_catalog"); // no message_outbox here
            }
            OutboxWriteException e =
                    assertThrows(OutboxWriteException.class, () -> outbox.record(c, orderPlaced(), null));
            assertEquals("42P01", e.sqlState());
            assertInstanceOf(SQLException.class, e.getCause());
            c.rollback();
        }
        assertEquals(0, messages());
    }

    /**
     * The database keeps what the outbox's own persistence relied on, since both are triggers on
     * {@code message_outbox}: an aggregate's versions without a gap (a capture recorded before its
     * order's creation is refused), and the notification that wakes a waiting relay at commit.
     */
    @Test
    void aPlainInsertKeepsGaplessVersionsAndWakesAWaitingRelay() throws Exception {
        Order.Transition placed = Order.place(
                UUID.randomUUID(),
                "cust-jdbc",
                null,
                EUR,
                List.of(new OrderLine("SKU-1", 2, Money.parse("21.25", EUR))),
                Instant.now().truncatedTo(ChronoUnit.MICROS));
        DomainEvent captured = placed.order()
                .capture(Money.parse("42.50", EUR), UUID.randomUUID(), Instant.now())
                .events()
                .get(0);
        try (Connection c = transaction()) {
            OutboxWriteException gap =
                    assertThrows(OutboxWriteException.class, () -> outbox.record(c, captured, MessageContext.none()));
            assertEquals("23514", gap.sqlState(), gap.getMessage());
            c.rollback();
        }

        db.update("INSERT INTO outbox_relay_waiters (relay_id) VALUES ('jdbc-it')");
        try (Connection listening = db.dataSource().getConnection();
                Connection c = transaction()) {
            try (Statement s = listening.createStatement()) {
                s.execute("LISTEN outbox_pending");
            }
            outbox.record(c, placed.events().get(0), MessageContext.none());
            outbox.record(c, captured, MessageContext.none());
            c.commit();
            org.postgresql.PGNotification[] woken =
                    listening.unwrap(org.postgresql.PGConnection.class).getNotifications(10_000);
            assertTrue(woken != null && woken.length >= 1, "a waiting relay is woken at commit");
            assertEquals("outbox_pending", woken[0].getName());
            try (Statement s = listening.createStatement()) {
                s.execute("UNLISTEN outbox_pending"); // the pooled connection goes back as it came
            }
        }
        assertEquals(2, messages());
    }

    /** A stack of the service's own: a thread-bound connection, handed over by {@link dev.outbox.CurrentTransaction}. */
    @Test
    void anOutboxOnTheServicesOwnTransactionStackWritesInItsTransactionAndNowhereElse() throws Exception {
        AtomicReference<Connection> current = new AtomicReference<>();
        Outbox onItsStack = OutboxPersistence.outbox(() -> Optional.ofNullable(current.get()));

        assertInstanceOf(
                OutsideTransactionException.class,
                assertThrows(OutboxException.class, () -> onItsStack.record(orderPlaced(), MessageContext.none())));

        try (Connection c = transaction()) {
            current.set(c);
            insertInvoice(c, "inv-1");
            onItsStack.record(orderPlaced(), MessageContext.none());
            c.commit();
        } finally {
            current.set(null);
        }
        assertEquals(List.of(1L, 1L), List.of(invoices(), messages()));
    }
}
