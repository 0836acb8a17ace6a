package dev.outbox.consumer.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import dev.outbox.Traceparent;
import dev.outbox.consumer.InboundMessage;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.kernel.topology.QueueDeclaration;
import java.nio.charset.CharacterCodingException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The AMQP wire contract as a consumer checks it, in one place, before any handler runs: what the
 * relay promises (messaging/README.md "AMQP wire format", {@code GET /asyncapi.json}) for each message type
 * this consumer's queue is bound to. A delivery that breaks any rule is refused with that
 * {@link Rule}; the runner dead-letters it at once with the rule in the reason, so no handler
 * ever sees a message the relay would not have sent.
 *
 * <p>What is checked, in this order (the first broken rule is the one reported):
 *
 * <ol>
 *   <li>{@code messageId}: a UUID (the outbox row id, the deduplication key);
 *   <li>{@code contentType} {@code application/json}; {@code contentEncoding} absent or
 *       {@code utf-8};
 *   <li>a headers table; {@code type} present; header {@code message_type} a string equal to it;
 *       the type has a contract and this queue is bound to it; delivered through the contract's
 *       exchange with the contract's routing key (or straight to the queue through the default
 *       exchange, as a replay from the dead-letter queue is);
 *   <li>{@code message_version} an integer field naming a version the catalogue has;
 *       {@code aggregate_type} the contract's; {@code aggregate_id} a non-blank string;
 *       {@code aggregate_version} a positive integer field, required for ordered types;
 *       {@code tenant_id}, {@code causation_id} strings and {@code traceparent} W3C trace context
 *       when present; no NUL in the ids PostgreSQL stores;
 *   <li>the body valid UTF-8, one JSON value, satisfying the schema of (type, version), and naming
 *       the same aggregate as {@code aggregate_id}.
 * </ol>
 *
 * A string header must be an AMQP string and a number an AMQP integer (byte, short, int or long):
 * a version sent as text, a decimal or a float is refused, not converted.
 */
public final class WireContract {
    /** The rule a delivery broke: its {@link #id()} is in the dead-letter reason and the metric's tag. */
    public enum Rule {
        MESSAGE_ID("message-id"),
        CONTENT_TYPE("content-type"),
        CONTENT_ENCODING("content-encoding"),
        HEADERS("headers"),
        TYPE("type"),
        MESSAGE_TYPE("message-type"),
        UNKNOWN_TYPE("unknown-type"),
        ROUTING("routing"),
        MESSAGE_VERSION("message-version"),
        UNKNOWN_VERSION("unknown-version"),
        AGGREGATE_TYPE("aggregate-type"),
        AGGREGATE_ID("aggregate-id"),
        AGGREGATE_VERSION("aggregate-version"),
        OPTIONAL_HEADER("optional-header"),
        CORRELATION_ID("correlation-id"),
        BODY_ENCODING("body-encoding"),
        BODY_JSON("body-json"),
        BODY_SCHEMA("body-schema");

        private final String id;

        Rule(String id) {
            this.id = id;
        }

        /** Stable, lower-case: {@code x-dead-letter-reason: contract/aggregate-version: ...}. */
        public String id() {
            return id;
        }
    }

    /** A delivery that breaks the contract: it can never be processed. */
    public static final class Violation extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient Rule rule;

        Violation(Rule rule, String detail) {
            super(detail);
            this.rule = rule;
        }

        public Rule rule() {
            return rule;
        }

        /** What the dead letter's reason header says: the rule first, then what was found. */
        public String reason() {
            return "contract/" + rule.id() + ": " + getMessage();
        }
    }

    public static final String CONTENT_TYPE = "application/json";

    private static final Pattern UUID =
            Pattern.compile("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");
    private static final int QUOTE = 60;

    private final MessageContracts catalogue;
    private final List<MessageContract> served;
    private final String describedAs;

    private WireContract(MessageContracts catalogue, Collection<MessageContract> served, String describedAs) {
        this.catalogue = catalogue;
        this.served = List.copyOf(served);
        this.describedAs = describedAs;
    }

    /**
     * The contract of {@code queue} on this classpath: the contracts whose exchange and routing
     * key its {@code topology/<queue>.queue.json} binds, or every contract when no module declares
     * the queue.
     */
    public static WireContract forQueue(String queue) {
        return forQueue(MessageContracts.onClasspath(), BrokerTopology.onClasspath(), queue);
    }

    public static WireContract forQueue(MessageContracts catalogue, BrokerTopology topology, String queue) {
        Optional<QueueDeclaration> declared = topology.find(queue);
        if (declared.isEmpty()) {
            return new WireContract(catalogue, catalogue.all(), "every contract (no topology file for " + queue + ")");
        }
        QueueDeclaration q = declared.get();
        List<MessageContract> bound = new ArrayList<>();
        for (MessageContract c : catalogue.all()) {
            if (q.routingKeysOn(c.exchange()).contains(c.routingKey())) {
                bound.add(c);
            }
        }
        return new WireContract(catalogue, bound, "the contracts bound to " + queue);
    }

    /** Serves every contract of {@code catalogue} (tests bring a catalogue of their own). */
    public static WireContract serving(MessageContracts catalogue) {
        return new WireContract(catalogue, catalogue.all(), "every contract of its catalogue");
    }

    /**
     * The ordered aggregate types of which this queue gets some message types but not all, each
     * with the types it misses: a consumer that applied them in aggregate order would hold each
     * message for a predecessor that never reaches it. Empty when the queue gets all or none.
     */
    public Map<String, List<String>> partlyBoundOrderedAggregates() {
        Map<String, List<String>> missing = new java.util.TreeMap<>();
        for (MessageContract c : catalogue.all()) {
            if (!c.ordered() || c.aggregateType() == null) {
                continue;
            }
            boolean servesTheAggregate = served.stream()
                    .anyMatch(s -> s.ordered() && c.aggregateType().equals(s.aggregateType()));
            boolean servesThisType =
                    served.stream().anyMatch(s -> s.messageType().equals(c.messageType()));
            if (servesTheAggregate && !servesThisType) {
                List<String> types = missing.computeIfAbsent(c.aggregateType(), k -> new ArrayList<>());
                if (!types.contains(c.messageType())) {
                    types.add(c.messageType());
                }
            }
        }
        return missing;
    }

    /** The message types this consumer accepts, for its start-up log. */
    public String describe() {
        return describedAs + ": "
                + served.stream().map(MessageContract::toString).distinct().toList();
    }

    /**
     * @return the delivery as the handler sees it
     * @throws Violation naming the first rule the delivery breaks
     */
    public InboundMessage check(Delivery delivery) throws Violation {
        AMQP.BasicProperties p = delivery.getProperties();
        String messageId = p.getMessageId();
        if (messageId == null) {
            throw new Violation(Rule.MESSAGE_ID, "no messageId: it cannot be deduplicated");
        }
        if (!UUID.matcher(messageId).matches()) {
            throw new Violation(
                    Rule.MESSAGE_ID, "messageId '" + quote(messageId) + "' is not a UUID (an outbox row id)");
        }
        checkContentType(p.getContentType());
        String encoding = p.getContentEncoding();
        if (encoding != null && !encoding.equalsIgnoreCase("utf-8")) {
            throw new Violation(
                    Rule.CONTENT_ENCODING, "contentEncoding '" + quote(encoding) + "' is not utf-8 (or absent)");
        }
        Map<String, Object> raw = p.getHeaders();
        if (raw == null) {
            throw new Violation(Rule.HEADERS, "no headers table");
        }
        String type = p.getType();
        if (type == null || type.isBlank()) {
            throw new Violation(Rule.TYPE, "no type property");
        }
        String headerType = AmqpHeaders.requiredText(raw, "message_type", Rule.MESSAGE_TYPE);
        if (!headerType.equals(type)) {
            throw new Violation(
                    Rule.MESSAGE_TYPE,
                    "header message_type '" + quote(headerType) + "' differs from the type property '" + quote(type)
                            + "'");
        }
        List<MessageContract> versions =
                served.stream().filter(c -> c.messageType().equals(type)).toList();
        if (versions.isEmpty()) {
            throw new Violation(
                    Rule.UNKNOWN_TYPE,
                    "'" + quote(type) + "' is "
                            + (catalogue.knows(type)
                                    ? "not a type this queue is bound to"
                                    : "not a known message type"));
        }
        checkRouting(delivery, versions.get(0));
        long version = AmqpHeaders.integer(raw, "message_version", Rule.MESSAGE_VERSION, true);
        MessageContract contract = versions.stream()
                .filter(c -> c.version() == version)
                .findFirst()
                .orElseThrow(() -> new Violation(
                        Rule.UNKNOWN_VERSION,
                        type + " has no contract at version " + version + " (known: "
                                + versions.stream()
                                        .map(MessageContract::version)
                                        .toList() + ")"));
        String aggregateType = AmqpHeaders.requiredText(raw, "aggregate_type", Rule.AGGREGATE_TYPE);
        if (!aggregateType.equals(contract.aggregateType())) {
            throw new Violation(
                    Rule.AGGREGATE_TYPE,
                    "aggregate_type '" + quote(aggregateType) + "' is not " + contract.aggregateType() + "'s");
        }
        String aggregateId = AmqpHeaders.requiredText(raw, "aggregate_id", Rule.AGGREGATE_ID);
        if (aggregateId.isBlank() || aggregateId.indexOf('\u0000') >= 0) {
            throw new Violation(Rule.AGGREGATE_ID, "aggregate_id is blank or holds a NUL character");
        }
        Long aggregateVersion = null;
        if (contract.ordered() || raw.containsKey("aggregate_version")) {
            long v = AmqpHeaders.integer(raw, "aggregate_version", Rule.AGGREGATE_VERSION, contract.ordered());
            if (v < 1) {
                throw new Violation(Rule.AGGREGATE_VERSION, "aggregate_version " + v + " is not positive");
            }
            aggregateVersion = v;
        }
        AmqpHeaders.optionalText(raw, "tenant_id");
        AmqpHeaders.optionalText(raw, "causation_id");
        String traceparent = AmqpHeaders.optionalText(raw, "traceparent");
        if (traceparent != null && !Traceparent.isValid(traceparent)) {
            throw new Violation(
                    Rule.OPTIONAL_HEADER, "traceparent '" + quote(traceparent) + "' is not W3C trace context");
        }
        String correlationId = p.getCorrelationId();
        if (correlationId != null && correlationId.indexOf('\u0000') >= 0) {
            throw new Violation(Rule.CORRELATION_ID, "correlationId holds a NUL character");
        }
        byte[] body = delivery.getBody() == null ? new byte[0] : delivery.getBody();
        JsonNode payload = payload(body);
        List<String> broken = contract.violations(null, payload);
        if (!broken.isEmpty()) {
            throw new Violation(Rule.BODY_SCHEMA, "breaks " + contract + ": " + quote(String.join("; ", broken), 400));
        }
        JsonNode named = payload.get(contract.aggregateIdProperty());
        if (named == null || !named.isTextual() || !named.asText().equals(aggregateId)) {
            throw new Violation(
                    Rule.AGGREGATE_ID,
                    "aggregate_id '" + quote(aggregateId) + "' is not the payload's " + contract.aggregateIdProperty());
        }
        Map<String, Object> headers;
        try {
            headers = AmqpHeaders.toJson(raw);
        } catch (AmqpHeaders.MalformedHeadersException e) {
            throw new Violation(Rule.HEADERS, e.getMessage());
        }
        return new InboundMessage(
                messageId,
                type,
                contract.version(),
                aggregateType,
                aggregateId,
                aggregateVersion,
                correlationId,
                headers,
                body,
                delivery.getEnvelope().isRedeliver());
    }

    /** {@code application/json}, in any case, with at most a {@code charset=utf-8} parameter. */
    private static void checkContentType(String contentType) throws Violation {
        if (contentType == null) {
            throw new Violation(Rule.CONTENT_TYPE, "no contentType (application/json)");
        }
        String[] parts = contentType.split(";", -1);
        boolean json = parts[0].trim().equalsIgnoreCase(CONTENT_TYPE);
        boolean parameters = parts.length == 1
                || (parts.length == 2
                        && parts[1].trim()
                                .replace(" ", "")
                                .toLowerCase(Locale.ROOT)
                                .matches("charset=\"?utf-8\"?"));
        if (!json || !parameters) {
            throw new Violation(Rule.CONTENT_TYPE, "contentType '" + quote(contentType) + "' is not " + CONTENT_TYPE);
        }
    }

    private static void checkRouting(Delivery delivery, MessageContract contract) throws Violation {
        String exchange = delivery.getEnvelope().getExchange();
        String routingKey = delivery.getEnvelope().getRoutingKey();
        if (exchange == null || exchange.isEmpty()) {
            // straight to the queue through the default exchange: a replay from the dead-letter queue
            return;
        }
        if (!exchange.equals(contract.exchange()) || !contract.routingKey().equals(routingKey)) {
            throw new Violation(
                    Rule.ROUTING,
                    "delivered through " + quote(exchange) + " with routing key '" + quote(routingKey) + "'; "
                            + contract.messageType() + " travels through " + contract.exchange() + " as '"
                            + contract.routingKey() + "'");
        }
    }

    private static JsonNode payload(byte[] body) throws Violation {
        String text;
        try {
            text = AmqpHeaders.strictUtf8(body);
        } catch (CharacterCodingException e) {
            throw new Violation(Rule.BODY_ENCODING, "body is not valid UTF-8 (" + body.length + " bytes)");
        }
        JsonNode payload;
        try {
            payload = Json.mapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new Violation(Rule.BODY_JSON, "body is not one JSON value: " + quote(e.getOriginalMessage(), 200));
        }
        if (payload == null || payload.isMissingNode()) {
            throw new Violation(Rule.BODY_JSON, "body is empty");
        }
        return payload;
    }

    private static String quote(String s) {
        return quote(s, QUOTE);
    }

    /** Enough of a value to recognise it in a reason header, NUL made visible. */
    private static String quote(String s, int max) {
        if (s == null) {
            return "null";
        }
        String shown = s.length() > max ? s.substring(0, max) + "...(" + s.length() + " chars)" : s;
        return shown.replace('\u0000', '\uFFFD');
    }
}
