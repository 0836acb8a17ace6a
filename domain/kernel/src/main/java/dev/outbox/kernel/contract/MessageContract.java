package dev.outbox.kernel.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One message type at one version: its JSON Schema and the outbox's facts about it, read from
 * {@code contracts/<type>/v<version>.schema.json}. The schema is the only definition of the
 * payload; the {@code x-outbox} block says where the message goes and how it is ordered:
 *
 * <pre>
 * "x-outbox": {
 *   "exchange": "orders.events",        where the relay publishes it
 *   "routingKey": "order.created",      optional; the message type when absent
 *   "aggregateType": "order",           the aggregate the events of this type belong to
 *   "aggregateIdProperty": "orderId",   the payload property that must equal the row's aggregate_id
 *   "ordered": true                     false: published without waiting for earlier versions
 * }
 * </pre>
 */
public final class MessageContract {
    private final String messageType;
    private final int version;
    private final String exchange;
    private final String routingKey;
    private final String aggregateType;
    private final String aggregateIdProperty;
    private final boolean ordered;
    private final String source;
    private final ObjectNode document;
    private final Schema schema;

    MessageContract(
            String messageType,
            int version,
            String exchange,
            String routingKey,
            String aggregateType,
            String aggregateIdProperty,
            boolean ordered,
            String source,
            ObjectNode document,
            Schema schema) {
        this.messageType = Objects.requireNonNull(messageType);
        this.version = version;
        this.exchange = Objects.requireNonNull(exchange);
        this.routingKey = Objects.requireNonNull(routingKey);
        this.aggregateType = Objects.requireNonNull(aggregateType);
        this.aggregateIdProperty = Objects.requireNonNull(aggregateIdProperty);
        this.ordered = ordered;
        this.source = Objects.requireNonNull(source);
        this.document = Objects.requireNonNull(document);
        this.schema = Objects.requireNonNull(schema);
    }

    public String messageType() {
        return messageType;
    }

    public int version() {
        return version;
    }

    public String exchange() {
        return exchange;
    }

    public String routingKey() {
        return routingKey;
    }

    public String aggregateType() {
        return aggregateType;
    }

    /** The payload property that names the aggregate; it must equal the row's {@code aggregate_id}. */
    public String aggregateIdProperty() {
        return aggregateIdProperty;
    }

    /** False for types published without waiting for earlier versions of their aggregate. */
    public boolean ordered() {
        return ordered;
    }

    public String title() {
        return document.path("title").asText(messageType + " v" + version);
    }

    public String description() {
        return document.path("description").asText("");
    }

    /** Where the contract was read from (a file or jar URL): named in every definition error. */
    public String source() {
        return source;
    }

    /**
     * The contract file's whole document, the {@code x-outbox} block included: what the registry
     * stores for a relay that does not have the file. A fresh copy on every call.
     */
    public ObjectNode document() {
        return document.deepCopy();
    }

    /**
     * The payload schema as a standalone JSON Schema (draft-07) for documents such as AsyncAPI:
     * the contract without the outbox's own {@code x-outbox} block and without {@code $schema}
     * and {@code $id}, which belong to the file. A fresh copy on every call.
     */
    public ObjectNode payloadSchema() {
        ObjectNode copy = document.deepCopy();
        copy.remove(List.of("x-outbox", "$schema", "$id", "examples"));
        return copy;
    }

    /** The contract's own examples: each must honour it, which the catalogue checks when it loads. */
    public List<JsonNode> examples() {
        List<JsonNode> out = new ArrayList<>();
        document.path("examples").forEach(out::add);
        return List.copyOf(out);
    }

    /**
     * Checks a payload against the schema and the aggregate rule.
     *
     * @param aggregateId the outbox row's (or the message's) aggregate id; the payload must name
     *     the same aggregate, so a message can never announce one aggregate while being ordered
     *     and deduplicated as another. Null skips that rule.
     * @return every violation, each as "where: what"; empty when the payload honours the contract
     */
    public List<String> violations(String aggregateId, JsonNode payload) {
        List<Error> errors = schema.validate(payload);
        List<String> out = new ArrayList<>(errors.size() + 1);
        for (Error e : errors) {
            out.add(describe(e));
        }
        if (out.isEmpty() && aggregateId != null) {
            JsonNode named = payload.get(aggregateIdProperty);
            String value = named == null || named.isNull() ? null : named.asText();
            if (!aggregateId.equals(value)) {
                out.add(aggregateIdProperty + " " + value + " does not match the row's aggregate_id " + aggregateId);
            }
        }
        return List.copyOf(out);
    }

    /**
     * Checks what a message of this type carries around its payload against the contract: its
     * aggregate type, a version when the type is ordered (consumers apply ordered types by version
     * and refuse one without), and where it travels. A consumer refuses a delivery that breaks any
     * of these (the consumer framework's wire contract); a row that breaks one is never sent.
     *
     * @return every violation; empty when the envelope honours the contract
     */
    public List<String> envelopeViolations(
            String aggregateType, Long aggregateVersion, String exchange, String routingKey) {
        List<String> out = new ArrayList<>(3);
        if (!this.aggregateType.equals(aggregateType)) {
            out.add("aggregate_type " + aggregateType + " is not the contract's " + this.aggregateType);
        }
        if (ordered && aggregateVersion == null) {
            out.add("aggregate_version is missing: " + messageType + " is ordered per aggregate");
        }
        if (!this.exchange.equals(exchange) || !this.routingKey.equals(routingKey)) {
            out.add("it travels through " + this.exchange + " as " + this.routingKey + ", not through " + exchange
                    + " as " + routingKey);
        }
        return List.copyOf(out);
    }

    /** "lines[0].quantity: must have a minimum value of 1", without the validator's "$." prefix. */
    private static String describe(Error e) {
        String message = e.getMessage();
        String where =
                e.getInstanceLocation() == null ? "" : e.getInstanceLocation().toString();
        if (where.startsWith("$.")) {
            where = where.substring(2);
        } else if ("$".equals(where)) {
            where = "payload";
        }
        if (message.startsWith(e.getInstanceLocation() + ": ")) {
            message = message.substring(e.getInstanceLocation().toString().length() + 2);
        }
        return where + ": " + message;
    }

    /**
     * True when both were read from equal JSON documents (the same file found twice on a
     * classpath, or a registered contract and the file it was registered from).
     */
    public boolean sameDefinitionAs(MessageContract other) {
        return document.equals(other.document);
    }

    @Override
    public String toString() {
        return messageType + " v" + version;
    }
}
