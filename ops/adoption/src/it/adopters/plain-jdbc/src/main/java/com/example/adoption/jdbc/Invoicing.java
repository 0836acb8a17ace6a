package com.example.adoption.jdbc;

import com.example.adoption.Database;
import dev.outbox.Aggregate;
import dev.outbox.ConnectionOutbox;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.OutboxPersistence;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/** A service on plain JDBC: its invoice and its message in the transaction it began. */
public final class Invoicing {
    static final String TABLE = "adopter_jdbc_invoices";

    private final DataSource dataSource;
    private final ConnectionOutbox outbox = OutboxPersistence.jdbc();

    public Invoicing(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public UUID issue(UUID id, BigDecimal amount, boolean failAfterRecording) throws SQLException {
        Map<String, Object> payload = Database.issued(id, amount);
        MessageContext context = MessageContext.none();
        // the adopting guide's plain-JDBC snippet, as written there
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                insertInvoice(c, id, amount);
                UUID messageId = outbox.record(c, new MessageType("invoice.issued", 1), Aggregate.unversioned("invoice", id.toString()), payload, context);
                if (failAfterRecording) {
                    throw new IllegalStateException("the rest of the business step failed");
                }
                c.commit();
                return messageId;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /** Recording on a connection in auto-commit: refused. */
    public void recordInAutoCommit(UUID id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            outbox.record(c, new MessageType("invoice.issued", 1), Aggregate.unversioned("invoice", id.toString()), Database.issued(id, BigDecimal.ONE), MessageContext.none());
        }
    }

    private static void insertInvoice(Connection c, UUID id, BigDecimal amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (id, amount) VALUES (?, ?)")) {
            ps.setObject(1, id);
            ps.setBigDecimal(2, amount);
            ps.executeUpdate();
        }
    }
}
