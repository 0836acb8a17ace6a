package dev.outbox.kernel.topology;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.kernel.ClasspathFiles;
import dev.outbox.kernel.contract.ContractDefinitionException;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The broker topology as data: every exchange a contract names (durable topic exchanges), and
 * every consumer queue a module declares in {@code topology/<queue>.queue.json}:
 *
 * <pre>
 * {
 *   "queue": "ledger.order-events",
 *   "consumer": "ledger",
 *   "bindings": [{"exchange": "orders.events", "routingKeys": "contracts"}],
 *   "arguments": {},                                   optional: queue arguments
 *   "deadLetterQueue": "ledger.order-events.dlq",      optional: the queue name + ".dlq"
 *   "deliveryLimit": 50,                               optional: x-delivery-limit of a quorum queue
 *   "deadLetterDeliveryLimit": 1000000                 optional: the same for its dead-letter queue
 * }
 * </pre>
 *
 * {@code "routingKeys": "contracts"} binds the routing key of every contract that names the
 * exchange, so a new message type reaches the queue without editing the file; a list binds those
 * keys only. Adding a consumer adds a file; nothing shared changes.
 */
public final class BrokerTopology {
    public static final String ROOT = "topology";
    private static final String SUFFIX = ".queue.json";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static volatile BrokerTopology onClasspath;

    private final Set<String> exchanges;
    private final Map<String, QueueDeclaration> queues;
    private final Map<String, ObjectNode> documents;

    private BrokerTopology(
            Set<String> exchanges, Map<String, QueueDeclaration> queues, Map<String, ObjectNode> documents) {
        this.exchanges = exchanges;
        this.queues = queues;
        this.documents = documents;
    }

    /** The topology on this process's classpath, with its contracts; loaded once. */
    public static BrokerTopology onClasspath() {
        BrokerTopology t = onClasspath;
        if (t == null) {
            synchronized (BrokerTopology.class) {
                t = onClasspath;
                if (t == null) {
                    t = load(BrokerTopology.class.getClassLoader(), MessageContracts.onClasspath());
                    onClasspath = t;
                }
            }
        }
        return t;
    }

    /** @throws ContractDefinitionException when a queue file cannot be used */
    public static BrokerTopology load(ClassLoader loader, MessageContracts contracts) {
        Set<String> exchanges = new TreeSet<>();
        contracts.all().forEach(c -> exchanges.add(c.exchange()));
        Map<String, QueueDeclaration> queues = new TreeMap<>();
        Map<String, ObjectNode> documents = new TreeMap<>();
        for (ClasspathFiles.Found f : ClasspathFiles.under(loader, ROOT)) {
            ObjectNode doc = readDocument(f);
            QueueDeclaration q = read(f, doc, contracts);
            QueueDeclaration earlier = queues.putIfAbsent(q.name(), q);
            if (earlier != null && !earlier.equals(q)) {
                throw new ContractDefinitionException(
                        "queue " + q.name() + " is declared twice, differently: " + f.url());
            }
            documents.putIfAbsent(q.name(), doc);
            q.bindings().forEach(b -> exchanges.add(b.exchange()));
        }
        return new BrokerTopology(
                java.util.Collections.unmodifiableSet(exchanges),
                java.util.Collections.unmodifiableMap(queues),
                java.util.Collections.unmodifiableMap(documents));
    }

    /**
     * The exchanges {@code contracts} name and {@code queues}, with the exchanges their bindings
     * name: a topology assembled at run time (the relay's, from its classpath and the registry)
     * rather than read from files. A queue named twice is taken from the later entry.
     */
    public static BrokerTopology of(MessageContracts contracts, java.util.Collection<QueueDeclaration> queues) {
        Set<String> exchanges = new TreeSet<>();
        contracts.all().forEach(c -> exchanges.add(c.exchange()));
        Map<String, QueueDeclaration> byName = new TreeMap<>();
        for (QueueDeclaration q : queues) {
            byName.put(q.name(), q);
            q.bindings().forEach(b -> exchanges.add(b.exchange()));
        }
        return new BrokerTopology(
                java.util.Collections.unmodifiableSet(exchanges),
                java.util.Collections.unmodifiableMap(byName),
                Map.of());
    }

    /**
     * The queue's file as written ({@code "routingKeys": "contracts"} unexpanded): what the registry
     * stores, so that a contract registered later on the exchange binds too. A fresh copy.
     */
    public java.util.Optional<ObjectNode> document(String queue) {
        return java.util.Optional.ofNullable(documents.get(queue)).map(ObjectNode::deepCopy);
    }

    /** Every exchange: each a durable topic exchange. */
    public Set<String> exchanges() {
        return exchanges;
    }

    /** Every consumer queue, by name. */
    public List<QueueDeclaration> queues() {
        return List.copyOf(queues.values());
    }

    /** The queue declared under this name, if any module declares it. */
    public java.util.Optional<QueueDeclaration> find(String name) {
        return java.util.Optional.ofNullable(queues.get(name));
    }

    public QueueDeclaration queue(String name) {
        return find(name)
                .orElseThrow(() ->
                        new ContractDefinitionException("no " + ROOT + "/" + name + SUFFIX + " on the classpath"));
    }

    private static ObjectNode readDocument(ClasspathFiles.Found f) {
        String where = f.url().toString();
        String file = f.name().substring(f.name().lastIndexOf('/') + 1);
        if (!file.endsWith(SUFFIX) || f.name().indexOf('/') != f.name().lastIndexOf('/')) {
            throw new ContractDefinitionException(where + ": a topology file is " + ROOT + "/<queue>" + SUFFIX);
        }
        JsonNode doc;
        try (InputStream in = f.url().openStream()) {
            doc = JSON.readTree(in);
        } catch (IOException e) {
            throw new ContractDefinitionException(where + ": not readable JSON: " + e.getMessage(), e);
        }
        if (!(doc instanceof ObjectNode object)) {
            throw new ContractDefinitionException(where + ": a topology file holds one JSON object");
        }
        return object;
    }

    private static QueueDeclaration read(ClasspathFiles.Found f, ObjectNode doc, MessageContracts contracts) {
        String where = f.url().toString();
        String file = f.name().substring(f.name().lastIndexOf('/') + 1);
        String name = text(doc, "queue", where);
        if (!file.equals(name + SUFFIX)) {
            throw new ContractDefinitionException(
                    where + ": declares queue " + name + "; the file must be named " + name + SUFFIX);
        }
        return declaration(doc, where, contracts);
    }

    /**
     * A queue declaration received as a document rather than read from the classpath: what the
     * operator API's registration is sent for a consumer that runs none of the outbox's code. It
     * gets every check a topology file gets, with the same words, except the file name's: it has
     * none. {@code where} stands for the file's URL in every error; {@code "routingKeys":
     * "contracts"} binds the routing keys of {@code contracts}.
     *
     * @throws ContractDefinitionException when the document cannot be used as a queue declaration
     */
    public static QueueDeclaration declaration(ObjectNode doc, String where, MessageContracts contracts) {
        String name = text(doc, "queue", where);
        String consumer = text(doc, "consumer", where);
        List<QueueDeclaration.Binding> bindings = new ArrayList<>();
        if (!doc.path("bindings").isArray() || doc.path("bindings").isEmpty()) {
            throw new ContractDefinitionException(where + ": bindings must list at least one exchange");
        }
        for (JsonNode b : doc.get("bindings")) {
            String exchange = text(b, "exchange", where);
            JsonNode keys = b.path("routingKeys");
            List<String> routingKeys = new ArrayList<>();
            if (keys.isTextual() && keys.asText().equals("contracts")) {
                contracts.all().stream()
                        .filter(c -> c.exchange().equals(exchange))
                        .map(MessageContract::routingKey)
                        .distinct()
                        .forEach(routingKeys::add);
            } else if (keys.isArray() && !keys.isEmpty()) {
                keys.forEach(k -> routingKeys.add(k.asText()));
            } else {
                throw new ContractDefinitionException(where + ": routingKeys is a non-empty list or \"contracts\"");
            }
            bindings.add(new QueueDeclaration.Binding(exchange, routingKeys));
        }
        Map<String, Object> arguments = new LinkedHashMap<>();
        JsonNode args = doc.path("arguments");
        for (Iterator<Map.Entry<String, JsonNode>> it = args.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> a = it.next();
            JsonNode v = a.getValue();
            arguments.put(
                    a.getKey(),
                    v.isIntegralNumber() ? (Object) v.asLong() : v.isBoolean() ? v.asBoolean() : v.asText());
        }
        String dlq = doc.hasNonNull("deadLetterQueue") ? text(doc, "deadLetterQueue", where) : name + ".dlq";
        int limit = limit(doc, "deliveryLimit", QueueDeclaration.DEFAULT_DELIVERY_LIMIT, where);
        int dlqLimit =
                limit(doc, "deadLetterDeliveryLimit", QueueDeclaration.DEFAULT_DEAD_LETTER_DELIVERY_LIMIT, where);
        return new QueueDeclaration(name, consumer, bindings, arguments, dlq, limit, dlqLimit);
    }

    private static int limit(JsonNode doc, String field, int fallback, String where) {
        JsonNode v = doc.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 1) {
            throw new ContractDefinitionException(where + ": " + field + " must be a whole number from 1 to "
                    + Integer.MAX_VALUE + " (0 and -1 make RabbitMQ drop messages)");
        }
        return v.asInt();
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new ContractDefinitionException(where + ": " + field + " must be a non-blank string");
        }
        return v.asText();
    }
}
