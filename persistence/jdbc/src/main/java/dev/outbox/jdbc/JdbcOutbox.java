package dev.outbox.jdbc;

import dev.outbox.Aggregate;
import dev.outbox.ConnectionOutbox;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.OutboxWriteException;
import dev.outbox.OutsideTransactionException;
import dev.outbox.kernel.contract.MessageContracts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.util.Objects;
import java.util.UUID;

/**
 * {@link ConnectionOutbox} on {@code java.sql} alone: the message becomes its row ({@link
 * OutboxMessages}: contract, envelope, JSON, trace context, time-ordered id), and one {@code
 * INSERT} puts it on the caller's connection. The database does the rest in the same transaction:
 * the notification that wakes a waiting relay and the aggregate's gapless versions are triggers
 * on {@code message_outbox}, so a plain insert keeps them.
 */
public final class JdbcOutbox implements ConnectionOutbox {
    /** The row as the relay expects it: {@code PENDING}, due now, created at the statement's time. */
    static final String INSERT = "INSERT INTO message_outbox ("
            + "id, aggregate_type, aggregate_id, aggregate_version, message_type, message_version,"
            + " exchange_name, routing_key, payload, headers, status, created_at, next_attempt_at,"
            + " correlation_id, causation_id, trace_id, tenant_id)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), CAST(? AS jsonb), 'PENDING', clock_timestamp(), now(),"
            + " ?, ?, ?, ?)";

    private final MessageContracts contracts;
    private final Clock clock;

    /** Checking messages against the contracts on the classpath. */
    public JdbcOutbox(Clock clock) {
        this(MessageContracts.onClasspath(), clock);
    }

    /** Checking messages against {@code contracts}. */
    public JdbcOutbox(MessageContracts contracts, Clock clock) {
        this.contracts = Objects.requireNonNull(contracts, "contracts");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public UUID record(
            Connection connection, MessageType type, Aggregate aggregate, Object payload, MessageContext context) {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(aggregate, "aggregate");
        try {
            if (connection.getAutoCommit()) {
                throw OutsideTransactionException.autoCommit(type);
            }
        } catch (SQLException e) {
            throw new OutboxWriteException(type, e);
        }
        NewOutboxMessage message = OutboxMessages.from(
                contracts,
                type,
                aggregate.type(),
                aggregate.id(),
                aggregate.version(),
                payload,
                context == null ? MessageContext.none() : context,
                clock.millis());
        try {
            insert(connection, message);
        } catch (SQLException e) {
            throw new OutboxWriteException(type, e);
        }
        return message.id();
    }

    /** Inserts {@code message} on {@code connection}, in whatever transaction is open on it. */
    static void insert(Connection connection, NewOutboxMessage message) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
            ps.setObject(1, message.id());
            ps.setString(2, message.aggregateType());
            ps.setString(3, message.aggregateId());
            ps.setObject(4, message.aggregateVersion(), Types.BIGINT);
            ps.setString(5, message.messageType());
            ps.setInt(6, message.messageVersion());
            ps.setString(7, message.exchangeName());
            ps.setString(8, message.routingKey());
            ps.setString(9, message.payload());
            ps.setString(10, message.headers());
            ps.setString(11, message.correlationId());
            ps.setString(12, message.causationId());
            ps.setString(13, message.traceId());
            ps.setString(14, message.tenantId());
            ps.executeUpdate();
        }
    }
}
