package dev.outbox.testkit.rows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Inserts {@link GeneratedRows.Row}s the way a plain SQL client would: one statement per row,
 * every value a bind parameter, {@code status} left to its default ({@code PENDING}). What
 * PostgreSQL refuses is counted by SQLSTATE: that is the database's edge, and the rows it
 * refused never existed.
 */
public final class RowWriter implements AutoCloseable {
    private static final String INSERT = "INSERT INTO message_outbox (id, aggregate_type, aggregate_id,"
            + " aggregate_version, message_type, message_version, exchange_name, routing_key, payload, headers,"
            + " attempt_count, next_attempt_at, created_at, correlation_id, causation_id, trace_id, tenant_id)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?,"
            + " COALESCE(?::timestamptz, now()), COALESCE(?::timestamptz, now()), ?, ?, ?, ?)";

    private final Connection connection;
    private final PreparedStatement insert;
    private final Map<String, Long> refusedBySqlState = new TreeMap<>();
    private final Map<String, String> firstRefusal = new TreeMap<>();
    private long inserted;

    public RowWriter(DataSource dataSource) throws SQLException {
        this.connection = dataSource.getConnection();
        this.connection.setAutoCommit(true);
        this.insert = connection.prepareStatement(INSERT);
    }

    /** Inserts the row; the SQLSTATE when PostgreSQL refuses it. */
    public Optional<String> insert(GeneratedRows.Row r) throws SQLException {
        insert.setObject(1, r.id());
        insert.setString(2, r.aggregateType());
        insert.setString(3, r.aggregateId());
        if (r.aggregateVersion() == null) {
            insert.setNull(4, Types.BIGINT);
        } else {
            insert.setLong(4, r.aggregateVersion());
        }
        insert.setString(5, r.messageType());
        insert.setInt(6, r.messageVersion());
        insert.setString(7, r.exchangeName());
        insert.setString(8, r.routingKey());
        insert.setString(9, r.payload());
        insert.setString(10, r.headers());
        insert.setInt(11, r.attemptCount());
        insert.setString(12, r.nextAttemptAt());
        insert.setString(13, r.createdAt());
        insert.setString(14, r.correlationId());
        insert.setString(15, r.causationId());
        insert.setString(16, r.traceId());
        insert.setString(17, r.tenantId());
        try {
            insert.executeUpdate();
            inserted++;
            return Optional.empty();
        } catch (SQLException e) {
            String state = e.getSQLState() == null ? "unknown" : e.getSQLState();
            if (state.startsWith("08")) {
                throw e; // the connection failed: not an answer about this row
            }
            refusedBySqlState.merge(state, 1L, Long::sum);
            String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
            firstRefusal.putIfAbsent(state, message.length() > 100 ? message.substring(0, 100) + "…" : message);
            return Optional.of(state);
        }
    }

    public long inserted() {
        return inserted;
    }

    /** Rows PostgreSQL refused, by SQLSTATE (22021 NUL in text, 22P02/22P05 JSON, 23514 a CHECK, ...). */
    public Map<String, Long> refusedBySqlState() {
        return Map.copyOf(refusedBySqlState);
    }

    /** The first message PostgreSQL (or pgjdbc) gave for each SQLSTATE. */
    public Map<String, String> firstRefusal() {
        return Map.copyOf(firstRefusal);
    }

    @Override
    public void close() throws SQLException {
        try {
            insert.close();
        } finally {
            connection.close();
        }
    }
}
