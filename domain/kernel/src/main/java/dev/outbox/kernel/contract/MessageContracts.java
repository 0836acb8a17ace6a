package dev.outbox.kernel.contract;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaException;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.PathType;
import dev.outbox.kernel.ClasspathFiles;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The catalogue of message contracts: every {@code contracts/<type>/v<version>.schema.json} on
 * the classpath, whichever jar or folder holds it. The module that owns a message type ships its
 * schema as a resource; nothing else needs to list it. The same catalogue is used when the
 * business transaction writes the outbox row (a payload that breaks its contract never commits),
 * when the relay is about to publish a row (a row written by another SQL client, or an old row
 * after a contract change, is parked as {@code PAYLOAD_INVALID} instead of sent) and by consumers.
 *
 * <p>A message type the catalogue does not know is not checked beyond being JSON (any SQL client
 * may insert rows, and not every producer ships contracts); a known type at a version it does not
 * know is a violation.
 */
public final class MessageContracts {
    /** The classpath folder contracts live in. */
    public static final String ROOT = "contracts";

    /** A message type as a contract file's folder names it: lower case, from a letter or digit. */
    private static final String TYPE = "[a-z0-9][a-z0-9._-]*";

    private static final Pattern FILE =
            Pattern.compile("(?:^|/)" + ROOT + "/(" + TYPE + ")/v([1-9][0-9]*)\\.schema\\.json$");
    private static final Pattern TYPE_NAME = Pattern.compile(TYPE);
    /** The ways a document may name draft-07 as its dialect. */
    private static final Set<String> DRAFT_7 =
            Set.of("http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema");

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Draft-07: the JSON Schema dialect AsyncAPI 3.0 embeds as its default schema format. */
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_7,
            b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder()
                    .formatAssertionsEnabled(true)
                    .pathType(PathType.JSON_PATH)
                    .build()));

    private static final Schema META_SCHEMA =
            REGISTRY.getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_7.getDialectId()));

    private static volatile MessageContracts onClasspath;

    /** By type, then by version. */
    private final Map<String, Map<Integer, MessageContract>> contracts;

    private MessageContracts(Map<String, Map<Integer, MessageContract>> contracts) {
        this.contracts = contracts;
    }

    /** The contracts on this process's classpath, loaded once. */
    public static MessageContracts onClasspath() {
        MessageContracts c = onClasspath;
        if (c == null) {
            synchronized (MessageContracts.class) {
                c = onClasspath;
                if (c == null) {
                    c = load(MessageContracts.class.getClassLoader());
                    onClasspath = c;
                }
            }
        }
        return c;
    }

    /**
     * Reads every contract {@code loader} can see.
     *
     * @throws ContractDefinitionException when any of them cannot be used
     */
    public static MessageContracts load(ClassLoader loader) {
        Map<String, Map<Integer, MessageContract>> byType = new TreeMap<>();
        for (URL url : contractFiles(loader)) {
            MessageContract c = read(url);
            MessageContract first = byType.computeIfAbsent(c.messageType(), t -> new TreeMap<>())
                    .putIfAbsent(c.version(), c);
            // the same jar twice on a classpath (a manifest Class-Path beside the build's) is harmless;
            // two different definitions of one type and version are not
            if (first != null && !first.sameDefinitionAs(c)) {
                throw new ContractDefinitionException(
                        c + " is defined twice, differently: " + first.source() + " and " + c.source());
            }
        }
        byType.forEach((type, versions) -> {
            Set<Boolean> ordering = new TreeSet<>();
            versions.values().forEach(v -> ordering.add(v.ordered()));
            if (ordering.size() > 1) {
                throw new ContractDefinitionException(
                        type + ": 'ordered' must be the same in every version; it is a property of the type");
            }
        });
        byType.replaceAll((type, versions) -> Collections.unmodifiableMap(versions));
        return new MessageContracts(Collections.unmodifiableMap(byType));
    }

    public Optional<MessageContract> find(String messageType, int version) {
        Map<Integer, MessageContract> versions = contracts.get(messageType);
        return versions == null ? Optional.empty() : Optional.ofNullable(versions.get(version));
    }

    /**
     * @throws ContractDefinitionException when there is no such contract: a producer asked to
     *     write a message nobody declared
     */
    public MessageContract require(String messageType, int version) {
        return find(messageType, version)
                .orElseThrow(() -> new ContractDefinitionException(
                        "no contract " + fileOf(messageType, version) + " on the classpath"));
    }

    /** Where the contract of a type and version lives on the classpath. */
    public static String fileOf(String messageType, int version) {
        return ROOT + "/" + messageType + "/v" + version + ".schema.json";
    }

    /** True when the catalogue has a contract for the type at any version. */
    public boolean knows(String messageType) {
        return contracts.containsKey(messageType);
    }

    /** Every contract, by type and version. */
    public List<MessageContract> all() {
        List<MessageContract> out = new ArrayList<>();
        contracts.values().forEach(v -> out.addAll(v.values()));
        return List.copyOf(out);
    }

    /**
     * This catalogue and {@code more}: for a check that needs contracts not on the classpath as
     * well, such as a queue bound to {@code "contracts"} and registered beside the contracts that
     * give it its routing keys. A type and version in both is taken from {@code more}.
     */
    public MessageContracts with(Collection<MessageContract> more) {
        Map<String, Map<Integer, MessageContract>> byType = new TreeMap<>();
        contracts.forEach((type, versions) -> byType.put(type, new TreeMap<>(versions)));
        for (MessageContract c : more) {
            byType.computeIfAbsent(c.messageType(), t -> new TreeMap<>()).put(c.version(), c);
        }
        byType.replaceAll((type, versions) -> Collections.unmodifiableMap(versions));
        return new MessageContracts(Collections.unmodifiableMap(byType));
    }

    /** The newest version of each type: what a producer writes unless it says otherwise. */
    public List<MessageContract> latest() {
        List<MessageContract> out = new ArrayList<>();
        contracts.values().forEach(v -> out.add(new TreeMap<>(v).lastEntry().getValue()));
        return List.copyOf(out);
    }

    /** Every message type the catalogue knows, sorted. */
    public Set<String> messageTypes() {
        return contracts.keySet();
    }

    /** Types whose contract says {@code "ordered": false}. */
    public Set<String> unorderedTypes() {
        Set<String> out = new TreeSet<>();
        all().stream().filter(c -> !c.ordered()).forEach(c -> out.add(c.messageType()));
        return Collections.unmodifiableSet(out);
    }

    /**
     * Checks a payload given as JSON text.
     *
     * @return the violations; empty when the payload honours its contract or its type is unknown
     */
    public List<String> violations(String messageType, int version, String aggregateId, String payloadJson) {
        if (!knows(messageType)) {
            return List.of();
        }
        JsonNode payload;
        try {
            payload = JSON.readTree(payloadJson);
        } catch (JsonProcessingException e) {
            return List.of("payload is not valid JSON: " + e.getOriginalMessage());
        }
        return violations(messageType, version, aggregateId, payload);
    }

    /** Checks a parsed payload; see {@link #violations(String, int, String, String)}. */
    public List<String> violations(String messageType, int version, String aggregateId, JsonNode payload) {
        if (!knows(messageType)) {
            return List.of();
        }
        Optional<MessageContract> contract = find(messageType, version);
        if (contract.isEmpty()) {
            return List.of(messageType + " has no contract at version " + version + " (known: "
                    + contracts.get(messageType).keySet() + ")");
        }
        return contract.get().violations(aggregateId, payload);
    }

    private static List<URL> contractFiles(ClassLoader loader) {
        List<URL> out = new ArrayList<>();
        for (ClasspathFiles.Found f : ClasspathFiles.under(loader, ROOT)) {
            if (f.name().endsWith(".json")) {
                requireContractName(f.name(), f.url().toString());
                out.add(f.url());
            }
        }
        return out;
    }

    /** A stray file in the contracts folder is a mistake worth stopping for, not something to skip. */
    private static void requireContractName(String name, String where) {
        if (!FILE.matcher(name).find()) {
            throw new ContractDefinitionException(where + ": a contract file must be named " + ROOT
                    + "/<message type>/v<version>.schema.json (lower case type, version from 1)");
        }
    }

    private static MessageContract read(URL url) {
        String source = url.toString();
        Matcher m = FILE.matcher(source);
        if (!m.find()) {
            throw new ContractDefinitionException(source + ": not a contract file name");
        }
        JsonNode doc;
        try (InputStream in = url.openStream()) {
            doc = JSON.readTree(in);
        } catch (IOException e) {
            throw new ContractDefinitionException(source + ": not readable JSON: " + e.getMessage(), e);
        }
        return parse(m.group(1), Integer.parseInt(m.group(2)), doc, source);
    }

    /**
     * A contract received as a document rather than read from the classpath: what the operator
     * API's registration is sent for a service that runs none of the outbox's code. It gets every
     * check a contract file gets, with the same words; {@code type} and {@code version} stand for
     * the file's name, and {@code source} for its URL in every error.
     *
     * @throws ContractDefinitionException when the document cannot be used as that contract
     */
    public static MessageContract parse(String type, int version, JsonNode doc, String source) {
        if (type == null || !TYPE_NAME.matcher(type).matches()) {
            throw new ContractDefinitionException(source + ": a message type is lower case letters, digits and ._-,"
                    + " from a letter or digit (found \"" + type + "\")");
        }
        if (version < 1) {
            throw new ContractDefinitionException(source + ": a contract's version counts from 1, not " + version);
        }
        if (!(doc instanceof ObjectNode sent)) {
            throw new ContractDefinitionException(source + ": a contract must be a JSON object");
        }
        // its own copy: a document received at run time stays the caller's to change
        ObjectNode document = sent.deepCopy();
        // any other dialect would be fetched from wherever "$schema" points, as a $ref would
        JsonNode dialect = document.get("$schema");
        if (dialect != null && !DRAFT_7.contains(dialect.asText(""))) {
            throw new ContractDefinitionException(source + ": $schema " + dialect + " is not draft-07; a contract is"
                    + " a draft-07 JSON Schema (\"http://json-schema.org/draft-07/schema#\", or no $schema)");
        }
        List<Error> metaErrors = META_SCHEMA.validate(document);
        if (!metaErrors.isEmpty()) {
            throw new ContractDefinitionException(source + ": not a valid draft-07 JSON Schema: " + metaErrors);
        }
        String expectedId = "urn:outbox:contract:" + type + ":v" + version;
        if (!expectedId.equals(document.path("$id").asText())) {
            throw new ContractDefinitionException(source + ": $id must be \"" + expectedId + "\" (found \""
                    + document.path("$id").asText() + "\"); a copied file keeps its old one");
        }
        if (!"object".equals(document.path("type").asText())) {
            throw new ContractDefinitionException(source + ": a message payload must be declared \"type\": \"object\"");
        }
        JsonNode outbox = document.path("x-outbox");
        String exchange = text(outbox, "exchange", source);
        String aggregateType = text(outbox, "aggregateType", source);
        String aggregateIdProperty = text(outbox, "aggregateIdProperty", source);
        String routingKey = outbox.hasNonNull("routingKey") ? text(outbox, "routingKey", source) : type;
        if (!outbox.path("ordered").isBoolean()) {
            throw new ContractDefinitionException(source + ": x-outbox.ordered must be true or false");
        }
        boolean required = false;
        for (JsonNode r : document.path("required")) {
            required |= aggregateIdProperty.equals(r.asText());
        }
        if (!required) {
            throw new ContractDefinitionException(source + ": x-outbox.aggregateIdProperty \"" + aggregateIdProperty
                    + "\" must be a required property");
        }
        requireLocalReferences(document, source);
        // compiled without the outbox's own block, which is data for the catalogue, not a keyword
        ObjectNode payloadSchema = document.deepCopy();
        payloadSchema.remove("x-outbox");
        try {
            Schema schema = REGISTRY.getSchema(SchemaLocation.of(expectedId), payloadSchema);
            MessageContract contract = new MessageContract(
                    type,
                    version,
                    exchange,
                    routingKey,
                    aggregateType,
                    aggregateIdProperty,
                    outbox.get("ordered").booleanValue(),
                    source,
                    document,
                    schema);
            for (JsonNode example : contract.examples()) {
                List<String> problems = contract.violations(null, example);
                if (!problems.isEmpty()) {
                    throw new ContractDefinitionException(source + ": an example breaks its own contract: " + problems);
                }
            }
            return contract;
        } catch (SchemaException e) {
            // the meta-schema passed it, yet it does not compile: a $ref that resolves to nothing, say
            throw new ContractDefinitionException(source + ": its schema cannot be used: " + e.getMessage(), e);
        }
    }

    /**
     * A contract is one self-contained document: the registry stores it alone, and every process
     * that validates against it has nothing else. A {@code $ref} that leaves it ({@code
     * "http://..."}, another file) would also make the validator fetch whatever it names.
     */
    private static void requireLocalReferences(JsonNode node, String source) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && (!ref.isTextual() || !ref.asText().startsWith("#"))) {
                throw new ContractDefinitionException(source + ": $ref " + ref
                        + " points outside the contract; a contract refers only within itself (\"#/...\")");
            }
        }
        for (JsonNode child : node) {
            requireLocalReferences(child, source);
        }
    }

    private static String text(JsonNode outbox, String field, String source) {
        JsonNode v = outbox.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new ContractDefinitionException(source + ": x-outbox." + field + " must be a non-blank string");
        }
        return v.asText();
    }
}
