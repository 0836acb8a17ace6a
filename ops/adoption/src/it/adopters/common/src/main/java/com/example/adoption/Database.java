package com.example.adoption;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** The tests' database (the outbox's integration-test variables) and the services' own table. */
public final class Database {
    private Database() {}

    public static DataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(required("OUTBOX_TEST_DB_URL"));
        ds.setUser(required("OUTBOX_TEST_DB_USER"));
        String password = System.getenv("OUTBOX_TEST_DB_PASSWORD");
        if (password != null) {
            ds.setPassword(password);
        }
        return ds;
    }

    private static String required(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(name + " is not set: the adopters' tests run on the database it names");
        }
        return value;
    }

    /** The service's own table, new and empty. */
    public static void invoices(DataSource ds, String table) throws SQLException {
        execute(ds, "DROP TABLE IF EXISTS " + table);
        execute(ds, "CREATE TABLE " + table + " (id uuid PRIMARY KEY, amount numeric NOT NULL)");
    }

    public static void execute(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
    }

    public static long count(DataSource ds, String sql, Object... args) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The rows of one invoice: the service's and the outbox's. */
    public static long[] invoiceAndMessages(DataSource ds, String table, UUID invoice) throws SQLException {
        return new long[] {
            count(ds, "SELECT count(*) FROM " + table + " WHERE id = ?", invoice),
            count(ds, "SELECT count(*) FROM message_outbox WHERE message_type = 'invoice.issued' AND aggregate_id = ?",
                    invoice.toString())
        };
    }

    /** invoice.issued v1's payload (contracts/invoice.issued/v1.schema.json). */
    public static Map<String, Object> issued(UUID invoice, BigDecimal amount) {
        return Map.of(
                "invoiceId", invoice.toString(),
                "orderId", UUID.randomUUID().toString(),
                "amount", amount.toPlainString(),
                "currency", "EUR",
                "issuedAt", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    }
}
