package dev.outbox.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.ContractConflictException;
import dev.outbox.OutboxException;
import dev.outbox.kernel.contract.MessageContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes and reads the registry ({@code outbox_message_contracts}, {@code
 * outbox_queue_declarations}): what a producer says about its message types and a consumer about
 * its queue, for processes that do not have their files. Each registering call is one transaction
 * of its own, so a registration is written whole or not at all; several processes may register the
 * same at once. {@link #registerIn} writes in a transaction the caller holds instead, for a caller
 * that commits more with it. {@link #contracts} reads what the relay validates against.
 */
public final class MessageRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(MessageRegistry.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a registration changed: rows added, rows that were there already as they are. */
    public record Outcome(int added, int unchanged, int replaced) {}

    /** What a registration of contracts and queues together changed, of each. */
    public record Outcomes(Outcome contracts, Outcome queues) {}

    /**
     * One registered contract as stored: its document is the JSON text PostgreSQL gives back
     * ({@code jsonb}, so key order and spacing are its own), not yet checked; any SQL client can
     * write the table, so a reader parses each row and decides what to do with one it cannot use.
     */
    public record RegisteredContract(
            String messageType, int version, String document, String registeredBy, Instant registeredAt) {}

    /**
     * One registered queue as stored: its declaration as its topology file has it ({@code
     * "routingKeys": "contracts"} unexpanded), not yet checked.
     */
    public record RegisteredQueue(
            String queue, String consumer, String declaration, int revision, String registeredBy, Instant updatedAt) {}

    /** A queue declaration's names, read before anything is written. */
    private record QueueNames(String queue, String consumer) {}

    private final DataSource dataSource;

    public MessageRegistry(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Registers {@code contracts}: each type and version not registered yet is added; one
     * registered with the same document (compared as JSON, so spacing and key order do not count)
     * is left as it is.
     *
     * @throws ContractConflictException when one is registered with a different document; then
     *     none of {@code contracts} is written
     */
    public Outcome registerContracts(Collection<MessageContract> contracts, String registeredBy) {
        requireName(registeredBy);
        return inTransaction(c -> contractsIn(c, contracts, registeredBy));
    }

    /**
     * Registers one queue as its topology file declares it ({@code declaration}, named by its
     * {@code "queue"} and {@code "consumer"} fields): added when new, left as it is when the same,
     * replaced (its revision counted up) when different, since a consumer's next release may bind
     * more or other keys.
     */
    public Outcome registerQueue(ObjectNode declaration, String registeredBy) {
        requireName(registeredBy);
        QueueNames names = names(declaration);
        return inTransaction(c -> queueIn(c, declaration, names, registeredBy));
    }

    /**
     * Registers {@code contracts}, then {@code queues}, in one transaction, each as {@link
     * #registerContracts} and {@link #registerQueue} do: what one service registers at once is
     * written whole or not at all, a queue included when a contract beside it is refused.
     *
     * @throws ContractConflictException when a contract is registered with a different document;
     *     then nothing of this registration is written
     */
    public Outcomes register(Collection<MessageContract> contracts, List<ObjectNode> queues, String registeredBy) {
        requireName(registeredBy);
        queues.forEach(MessageRegistry::names);
        return inTransaction(c -> registerIn(c, contracts, queues, registeredBy));
    }

    /**
     * {@link #register} in the caller's transaction on {@code connection}, which it neither
     * commits nor rolls back: for a caller that writes more in the same commit (the operator API
     * audits a registration with it). After an exception the caller must roll back, since some of
     * the registration may be written.
     *
     * @throws ContractConflictException when a contract is registered with a different document
     * @throws SQLException when a statement fails, for the caller to translate as its own
     */
    public static Outcomes registerIn(
            Connection connection, Collection<MessageContract> contracts, List<ObjectNode> queues, String registeredBy)
            throws SQLException {
        requireName(registeredBy);
        List<QueueNames> names = queues.stream().map(MessageRegistry::names).toList();
        Outcome written = contractsIn(connection, contracts, registeredBy);
        int added = 0;
        int unchanged = 0;
        int replaced = 0;
        for (int i = 0; i < queues.size(); i++) {
            Outcome q = queueIn(connection, queues.get(i), names.get(i), registeredBy);
            added += q.added();
            unchanged += q.unchanged();
            replaced += q.replaced();
        }
        return new Outcomes(written, new Outcome(added, unchanged, replaced));
    }

    /**
     * A short digest of every registered contract (type, version and document): equal digests mean
     * nothing was added, changed or removed, so a reader polls this and reads {@link #contracts}
     * only when it differs. Empty text when nothing is registered.
     */
    public String contractsDigest() {
        return read(
                "SELECT coalesce(md5(string_agg(message_type || ' ' || message_version || ' '"
                        + " || md5(schema_document::text), ',' ORDER BY message_type, message_version)), '')"
                        + " FROM outbox_message_contracts",
                rs -> {
                    rs.next();
                    return rs.getString(1);
                });
    }

    /** {@link #contractsDigest} for the queue declarations: equal digests, nothing changed. */
    public String queuesDigest() {
        return read(
                "SELECT coalesce(md5(string_agg(queue_name || ' ' || revision || ' ' || md5(declaration::text), ','"
                        + " ORDER BY queue_name)), '') FROM outbox_queue_declarations",
                rs -> {
                    rs.next();
                    return rs.getString(1);
                });
    }

    /** Every registered queue declaration, by queue name. */
    public List<RegisteredQueue> queues() {
        return read(
                "SELECT queue_name, consumer_name, declaration::text, revision, registered_by, updated_at"
                        + " FROM outbox_queue_declarations ORDER BY queue_name",
                rs -> {
                    List<RegisteredQueue> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(new RegisteredQueue(
                                rs.getString(1),
                                rs.getString(2),
                                rs.getString(3),
                                rs.getInt(4),
                                rs.getString(5),
                                rs.getTimestamp(6).toInstant()));
                    }
                    return out;
                });
    }

    /** Every registered contract, by type and version. */
    public List<RegisteredContract> contracts() {
        return read(
                "SELECT message_type, message_version, schema_document::text, registered_by, registered_at"
                        + " FROM outbox_message_contracts ORDER BY message_type, message_version",
                rs -> {
                    List<RegisteredContract> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(new RegisteredContract(
                                rs.getString(1),
                                rs.getInt(2),
                                rs.getString(3),
                                rs.getString(4),
                                rs.getTimestamp(5).toInstant()));
                    }
                    return out;
                });
    }

    private interface Rows<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private <T> T read(String sql, Rows<T> rows) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            return rows.read(rs);
        } catch (SQLException e) {
            throw new OutboxException("could not read the outbox's registry: " + e.getMessage(), e);
        }
    }

    private static Outcome contractsIn(Connection c, Collection<MessageContract> contracts, String registeredBy)
            throws SQLException {
        if (contracts.isEmpty()) {
            return new Outcome(0, 0, 0);
        }
        int added = 0;
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO outbox_message_contracts"
                        + " (message_type, message_version, exchange_name, routing_key, aggregate_type, ordered,"
                        + " schema_document, registered_by) VALUES (?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?)"
                        + " ON CONFLICT (message_type, message_version) DO NOTHING");
                PreparedStatement same = c.prepareStatement("SELECT schema_document = CAST(? AS jsonb),"
                        + " registered_by FROM outbox_message_contracts"
                        + " WHERE message_type = ? AND message_version = ?");
                PreparedStatement otherOrdering = c.prepareStatement("SELECT 1 FROM outbox_message_contracts"
                        + " WHERE message_type = ? AND ordered <> ? LIMIT 1")) {
            for (MessageContract contract : contracts) {
                String document = json(contract.document());
                insert.setString(1, contract.messageType());
                insert.setInt(2, contract.version());
                insert.setString(3, contract.exchange());
                insert.setString(4, contract.routingKey());
                insert.setString(5, contract.aggregateType());
                insert.setBoolean(6, contract.ordered());
                insert.setString(7, document);
                insert.setString(8, registeredBy);
                if (insert.executeUpdate() == 1) {
                    added++;
                    otherOrdering.setString(1, contract.messageType());
                    otherOrdering.setBoolean(2, contract.ordered());
                    try (ResultSet rs = otherOrdering.executeQuery()) {
                        if (rs.next()) {
                            throw ContractConflictException.orderingDiffers(
                                    contract.messageType(), contract.version(), contract.ordered());
                        }
                    }
                    continue;
                }
                same.setString(1, document);
                same.setString(2, contract.messageType());
                same.setInt(3, contract.version());
                try (ResultSet rs = same.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        throw new ContractConflictException(
                                contract.messageType(), contract.version(), rs.getString(2));
                    }
                }
            }
        }
        Outcome outcome = new Outcome(added, contracts.size() - added, 0);
        LOG.info(
                "registered {} message contract(s) for {}: {} new, {} registered already",
                contracts.size(),
                registeredBy,
                outcome.added(),
                outcome.unchanged());
        return outcome;
    }

    private static Outcome queueIn(Connection c, ObjectNode declaration, QueueNames names, String registeredBy)
            throws SQLException {
        String queue = names.queue();
        String consumer = names.consumer();
        try (PreparedStatement upsert = c.prepareStatement("INSERT INTO outbox_queue_declarations AS q"
                + " (queue_name, consumer_name, declaration, registered_by) VALUES (?, ?, CAST(? AS jsonb), ?)"
                + " ON CONFLICT (queue_name) DO UPDATE SET consumer_name = EXCLUDED.consumer_name,"
                + " declaration = EXCLUDED.declaration, registered_by = EXCLUDED.registered_by,"
                + " revision = q.revision + 1, updated_at = now()"
                + " WHERE q.declaration IS DISTINCT FROM EXCLUDED.declaration"
                + " OR q.consumer_name IS DISTINCT FROM EXCLUDED.consumer_name"
                + " RETURNING q.revision")) {
            upsert.setString(1, queue);
            upsert.setString(2, consumer);
            upsert.setString(3, json(declaration));
            upsert.setString(4, registeredBy);
            try (ResultSet rs = upsert.executeQuery()) {
                if (!rs.next()) {
                    LOG.info("queue {} of {}: registered already, as declared", queue, consumer);
                    return new Outcome(0, 1, 0);
                }
                int revision = rs.getInt(1);
                LOG.info("queue {} of {}: registered, revision {}", queue, consumer, revision);
                return revision == 1 ? new Outcome(1, 0, 0) : new Outcome(0, 0, 1);
            }
        }
    }

    /** The queue's and its consumer's names, refused before anything is written when missing. */
    private static QueueNames names(ObjectNode declaration) {
        String queue = declaration.path("queue").asText("");
        String consumer = declaration.path("consumer").asText("");
        if (queue.isBlank() || consumer.isBlank()) {
            throw new OutboxException("a queue declaration names its \"queue\" and its \"consumer\": " + declaration);
        }
        return new QueueNames(queue, consumer);
    }

    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T inTransaction(Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new OutboxException("could not write the outbox's registry: " + e.getMessage(), e);
        }
    }

    private static void requireName(String registeredBy) {
        if (registeredBy == null || registeredBy.isBlank()) {
            throw new IllegalArgumentException("registeredBy names who registers, for operators");
        }
    }

    private static String json(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new OutboxException("cannot write " + node + " as JSON", e);
        }
    }
}
