package dev.outbox.relay;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.jdbc.MessageRegistry.RegisteredContract;
import dev.outbox.kernel.contract.ContractDefinitionException;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.json.Json;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.persistence.outbox.OutboxStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The message contracts the relay checks each row against before it publishes it, and the types
 * it publishes unordered: the contracts on its own classpath, those producers registered in the
 * database ({@code outbox_message_contracts}), and {@code OUTBOX_RELAY_UNORDERED_TYPES}. The
 * shipped relay has no service's contracts on its classpath; the registry is how it learns them,
 * at start and again whenever a registration changes ({@link RegistryWatch}), without a restart.
 *
 * <p>Any SQL client can write the registry. A registered document the relay cannot use as a
 * contract (not a draft-07 schema, a wrong {@code $id}, a {@code $ref} that leaves it, anything
 * {@link MessageContracts#parse} refuses) is skipped and logged once, and counted in {@link
 * #unusable()}; the rest still apply. Where a registered contract and one on the classpath share a
 * type and version, the registered one counts: it is what the producer validates its writes
 * against. A type is unordered only when every version the relay knows says {@code "ordered":
 * false}, or when the variable lists it: holding a row back is safe, publishing one out of order
 * is not.
 */
public final class RelayContracts {
    private static final Logger LOG = LoggerFactory.getLogger(RelayContracts.class);

    /** What the relay checks against now; replaced whole, never changed in place. */
    private record Known(
            MessageContracts contracts,
            Set<String> unordered,
            Set<OutboxStore.TypeVersion> registeredTypes,
            int registered,
            int unusable) {}

    /** A registered row's identity: the same type and version with another document is another row. */
    private record Row(String messageType, int version, String document) {}

    /** A row parsed once: the contract, or why it cannot be used. */
    private record Parsed(MessageContract contract, String problem) {}

    private final MessageContracts classpath;
    private final Set<String> configuredUnordered;
    private final boolean parkUnregistered;
    private final Map<Row, Parsed> parsed = new HashMap<>();
    private volatile Known known;

    /**
     * @param parkUnregistered {@code OUTBOX_RELAY_UNREGISTERED_TYPES=park}: a row of a type no
     *     contract describes is parked {@code CONTRACT_UNKNOWN} instead of checked for JSON only
     */
    RelayContracts(MessageContracts classpath, Collection<String> configuredUnordered, boolean parkUnregistered) {
        this.classpath = Objects.requireNonNull(classpath, "classpath");
        this.configuredUnordered = Set.copyOf(configuredUnordered);
        this.parkUnregistered = parkUnregistered;
        this.known = merge(List.of(), 0);
    }

    /** The classpath's contracts and the configured unordered types, until the registry is read. */
    static RelayContracts fromClasspath(Collection<String> configuredUnordered, boolean parkUnregistered) {
        return new RelayContracts(MessageContracts.onClasspath(), configuredUnordered, parkUnregistered);
    }

    /** The contracts to check a row against now. */
    public MessageContracts current() {
        return known.contracts();
    }

    /**
     * Maps {@code row} for publishing, checked against {@link #current}; a row of a type no
     * contract describes is {@code CONTRACT_UNKNOWN} when the relay parks those.
     */
    public AmqpMessageMapper.Mapped map(OutboxRecord row) {
        MessageContracts contracts = current();
        if (parkUnregistered
                && contracts.find(row.messageType(), row.messageVersion()).isEmpty()) {
            // a version not registered yet is the same wait as a type: its producer may register it
            // a moment after writing, and the row must not be lost as PAYLOAD_INVALID meanwhile
            return new AmqpMessageMapper.Invalid(
                    ErrorCode.CONTRACT_UNKNOWN,
                    "no contract for message type " + row.messageType() + " v" + row.messageVersion()
                            + " is registered or on the relay's classpath; retried by the relay once its producer"
                            + " registers one");
        }
        return AmqpMessageMapper.map(row, contracts);
    }

    /** Whether a row of a type no contract describes is parked ({@code CONTRACT_UNKNOWN}). */
    boolean parksUnregistered() {
        return parkUnregistered;
    }

    /** The types published without waiting for earlier versions of their aggregate, now. */
    public Set<String> unorderedTypes() {
        return known.unordered();
    }

    /** The types and versions with a usable contract in the registry: what every relay reading it knows. */
    Set<OutboxStore.TypeVersion> registeredTypes() {
        return known.registeredTypes();
    }

    /** Registered contracts in use now. */
    int registered() {
        return known.registered();
    }

    /** Registered rows skipped because they cannot be used as contracts. */
    int unusable() {
        return known.unusable();
    }

    /**
     * Makes {@code rows}, the registry as read, what the relay checks against beside its
     * classpath. A row seen before (same type, version and document) is not parsed again, and a
     * row that cannot be used is logged the first time only.
     */
    synchronized void apply(List<RegisteredContract> rows) {
        Set<Row> seen = new java.util.HashSet<>();
        List<MessageContract> usable = new ArrayList<>();
        int unusable = 0;
        for (RegisteredContract r : rows) {
            Row row = new Row(r.messageType(), r.version(), r.document());
            seen.add(row);
            Parsed p = parsed.computeIfAbsent(row, k -> parse(r));
            if (p.contract() != null) {
                usable.add(p.contract());
            } else {
                unusable++;
            }
        }
        // a row deleted or replaced by hand is forgotten, so the cache holds the registry and no more
        parsed.keySet().retainAll(seen);
        Known before = known;
        Known after = merge(usable, unusable);
        known = after;
        Set<String> was = describe(before.contracts().all());
        Set<String> now = describe(after.contracts().all());
        if (!was.equals(now) || !before.unordered().equals(after.unordered())) {
            Set<String> added = new TreeSet<>(now);
            added.removeAll(was);
            Set<String> removed = new TreeSet<>(was);
            removed.removeAll(now);
            LOG.info(
                    "relay knows {} message contract(s) ({} registered in the database, {} unusable); added {},"
                            + " removed {}; unordered types {}",
                    now.size(),
                    after.registered(),
                    after.unusable(),
                    added,
                    removed,
                    after.unordered());
        }
    }

    /** Says what the relay knows, for its start-up log. */
    String summary() {
        Known k = known;
        return k.contracts().all().size() + " message contract(s) "
                + describe(k.contracts().all()) + ", "
                + k.registered() + " of them from the registry, " + k.unusable() + " registered row(s) unusable;"
                + " unordered types " + k.unordered() + "; rows of other types "
                + (parkUnregistered ? "parked CONTRACT_UNKNOWN" : "checked for JSON only");
    }

    private Known merge(List<MessageContract> registered, int unusable) {
        MessageContracts merged = classpath.with(registered);
        Map<String, Set<Boolean>> ordering = new TreeMap<>();
        for (MessageContract c : merged.all()) {
            ordering.computeIfAbsent(c.messageType(), t -> new TreeSet<>()).add(c.ordered());
        }
        Set<String> unordered = new TreeSet<>(configuredUnordered);
        ordering.forEach((type, values) -> {
            if (values.equals(Set.of(false))) {
                unordered.add(type);
            } else if (values.size() > 1) {
                LOG.warn(
                        "{}: its versions disagree on \"ordered\" (the classpath's and the registry's); published"
                                + " in order unless OUTBOX_RELAY_UNORDERED_TYPES lists it",
                        type);
            }
        });
        Set<OutboxStore.TypeVersion> registeredTypes = new java.util.HashSet<>();
        registered.forEach(c -> registeredTypes.add(new OutboxStore.TypeVersion(c.messageType(), c.version())));
        return new Known(
                merged,
                Collections.unmodifiableSet(unordered),
                Collections.unmodifiableSet(registeredTypes),
                registered.size(),
                unusable);
    }

    private Parsed parse(RegisteredContract r) {
        String source = "registered contract " + r.messageType() + " v" + r.version() + " (by " + r.registeredBy()
                + " at " + r.registeredAt() + ")";
        try {
            JsonNode document = Json.mapper().readTree(r.document());
            MessageContract contract = MessageContracts.parse(r.messageType(), r.version(), document, source);
            classpath
                    .find(r.messageType(), r.version())
                    .filter(c -> !c.sameDefinitionAs(contract))
                    .ifPresent(c -> LOG.warn(
                            "{} differs from the relay's own {}; rows are checked against the registered one,"
                                    + " which its producer validates against",
                            source,
                            c.source()));
            return new Parsed(contract, null);
        } catch (Exception e) { // NOPMD: a row any SQL client wrote; whatever fails, this row cannot be used
            // the contract's own checks name the row first; anything else thrown is named here
            String problem = e instanceof ContractDefinitionException ? e.getMessage() : source + ": " + e;
            LOG.warn("{}; skipped: rows of that type are checked as if it were not registered", problem);
            return new Parsed(null, problem);
        }
    }

    private static Set<String> describe(List<MessageContract> contracts) {
        Set<String> out = new TreeSet<>();
        contracts.forEach(c -> out.add(c.messageType() + " v" + c.version()));
        return out;
    }
}
