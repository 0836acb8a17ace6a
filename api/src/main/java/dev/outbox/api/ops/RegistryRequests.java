package dev.outbox.api.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.Problem;
import dev.outbox.api.http.StorableValues;
import dev.outbox.domain.InvalidInputException;
import dev.outbox.domain.Violation;
import dev.outbox.kernel.contract.ContractDefinitionException;
import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.ops.views.OpsActionViews;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A registration as {@code POST /ops/registry} receives it, read into what the registry writes:
 * each contract parsed as the catalogue parses a file on a classpath, each queue checked as the
 * topology checks a file, so that a document a process would refuse from its own jar is refused
 * here too, in the same words and before anything is written. Every refusal names its entry
 * ({@code contracts[1]}, {@code queues[0]}), which {@code outboxctl register} maps back to a file.
 */
final class RegistryRequests {
    static final String INVALID = "contract_invalid or queue_invalid: a document a process would refuse from its"
            + " classpath, the entry (contracts[i], queues[i]) and the reason in detail; validation_failed or"
            + " malformed_json: the request itself (a list missing, an entry twice, text PostgreSQL cannot store).";
    static final String CONFLICT = "contract_conflict: a contract's type and version are registered already with"
            + " another schema, and nothing was written. A registered contract never changes: register the change"
            + " as the type's next version.";

    /** A queue name and a routing key are AMQP short strings: at most 255 bytes. */
    private static final int MOST_BYTES = 255;

    /** What is written: the contracts as parsed, the queues as they were sent. */
    record Registration(List<MessageContract> contracts, List<ObjectNode> queues) {}

    private RegistryRequests() {}

    /**
     * The registration in {@code body}, every document checked.
     *
     * @param actor who registers, named in every refusal as a file's URL would be
     * @throws InvalidInputException when the request itself is wrong ({@code validation_failed})
     * @throws ApiException {@code contract_invalid} or {@code queue_invalid} for a document a
     *     process would refuse
     */
    static Registration read(OpsActionViews.RegisterRequest body, String actor) {
        if (body == null) {
            throw InvalidInputException.of("body", "is required");
        }
        List<Violation> errors = new ArrayList<>();
        if (body.contracts() == null) {
            errors.add(new Violation("contracts", "is required: [] when there are none"));
        }
        if (body.queues() == null) {
            errors.add(new Violation("queues", "is required: [] when there are none"));
        }
        if (errors.isEmpty() && body.contracts().isEmpty() && body.queues().isEmpty()) {
            errors.add(new Violation("contracts", "name at least one contract or queue"));
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        Set<String> types = new HashSet<>();
        for (int i = 0; i < body.contracts().size(); i++) {
            checkContract("contracts[" + i + "]", body.contracts().get(i), types, errors);
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < body.queues().size(); i++) {
            checkQueue("queues[" + i + "]", body.queues().get(i), names, errors);
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        String by = " of the registration by " + actor;
        List<MessageContract> contracts = new ArrayList<>();
        for (int i = 0; i < body.contracts().size(); i++) {
            OpsActionViews.ContractFile c = body.contracts().get(i);
            String source = "contracts[" + i + "]" + by;
            try {
                contracts.add(MessageContracts.parse(c.messageType(), c.version(), c.document(), source));
            } catch (ContractDefinitionException e) {
                throw invalidContract(e.getMessage());
            }
        }
        // "routingKeys": "contracts" is expanded only to check the declaration; it is stored as sent
        MessageContracts known = MessageContracts.onClasspath().with(contracts);
        List<ObjectNode> queues = new ArrayList<>();
        for (int i = 0; i < body.queues().size(); i++) {
            String source = "queues[" + i + "]" + by;
            if (!(body.queues().get(i) instanceof ObjectNode declaration)) {
                throw invalidQueue(source + ": a queue declaration is one JSON object");
            }
            try {
                BrokerTopology.declaration(declaration, source, known);
            } catch (ContractDefinitionException e) {
                throw invalidQueue(e.getMessage());
            }
            queues.add(declaration);
        }
        return new Registration(List.copyOf(contracts), List.copyOf(queues));
    }

    /** A contract entry: present, its type short enough to route and named once, its text storable. */
    private static void checkContract(
            String field, OpsActionViews.ContractFile c, Set<String> types, List<Violation> errors) {
        if (c == null) {
            errors.add(new Violation(field, "must be an object: messageType, version, document"));
            return;
        }
        if (c.messageType() == null || c.messageType().isBlank()) {
            errors.add(new Violation(field + ".messageType", "is required"));
        } else if (c.messageType().length() > MOST_BYTES) {
            errors.add(new Violation(field + ".messageType", "must be at most " + MOST_BYTES + " characters"));
        } else if (!types.add(c.messageType() + " v" + c.version())) {
            errors.add(new Violation(field, "names the type and version of an earlier entry"));
        }
        if (c.document() != null) {
            Violation defect = StorableValues.jsonDefect(field + ".document", c.document());
            if (defect != null) {
                errors.add(defect);
            }
        }
    }

    /** A queue entry: its text storable, its name short enough for the broker and declared once. */
    private static void checkQueue(String field, JsonNode queue, Set<String> names, List<Violation> errors) {
        if (queue == null) {
            return; // refused as no JSON object, with the declarations' own words
        }
        Violation defect = StorableValues.jsonDefect(field, queue);
        if (defect != null) {
            errors.add(defect);
            return;
        }
        JsonNode name = queue.path("queue");
        if (!name.isTextual()) {
            return;
        }
        if (name.textValue().getBytes(StandardCharsets.UTF_8).length > MOST_BYTES) {
            errors.add(new Violation(field + ".queue", "must be at most " + MOST_BYTES + " bytes in UTF-8"));
        } else if (!names.add(name.textValue())) {
            errors.add(new Violation(field + ".queue", "names the queue of an earlier entry"));
        }
    }

    private static ApiException invalidContract(String detail) {
        return new ApiException(Problem.of(400, "contract_invalid", "Invalid contract", detail));
    }

    private static ApiException invalidQueue(String detail) {
        return new ApiException(Problem.of(400, "queue_invalid", "Invalid queue declaration", detail));
    }
}
