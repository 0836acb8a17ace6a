package dev.outbox.persistence.registry;

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
import java.util.Collection;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the registry ({@code outbox_message_contracts}, {@code outbox_queue_declarations}): what
 * a producer says about its message types and a consumer about its queue, for processes that do
 * not have their files. Each call is one transaction of its own, so a registration is written
 * whole or not at all; several processes may register the same at once.
 */
public final class MessageRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(MessageRegistry.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a registration changed: rows added, rows that were there already as they are. */
    public record Outcome(int added, int unchanged, int replaced) {}

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
        return inTransaction(c -> {
            int added = 0;
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO outbox_message_contracts"
                            + " (message_type, message_version, exchange_name, routing_key, aggregate_type, ordered,"
                            + " schema_document, registered_by) VALUES (?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?)"
                            + " ON CONFLICT (message_type, message_version) DO NOTHING");
                    PreparedStatement same = c.prepareStatement("SELECT schema_document = CAST(? AS jsonb),"
                            + " registered_by FROM outbox_message_contracts"
                            + " WHERE message_type = ? AND message_version = ?")) {
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
        });
    }

    /**
     * Registers one queue as its topology file declares it ({@code declaration}, named by its
     * {@code "queue"} and {@code "consumer"} fields): added when new, left as it is when the same,
     * replaced (its revision counted up) when different, since a consumer's next release may bind
     * more or other keys.
     */
    public Outcome registerQueue(ObjectNode declaration, String registeredBy) {
        requireName(registeredBy);
        String queue = declaration.path("queue").asText("");
        String consumer = declaration.path("consumer").asText("");
        if (queue.isBlank() || consumer.isBlank()) {
            throw new OutboxException("a queue declaration names its \"queue\" and its \"consumer\": " + declaration);
        }
        String document = json(declaration);
        return inTransaction(c -> {
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
                upsert.setString(3, document);
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
        });
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
