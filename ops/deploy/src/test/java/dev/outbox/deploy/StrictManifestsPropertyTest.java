package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;

import dev.outbox.deploy.ManifestFiles.Document;
import dev.outbox.deploy.Positions.Position;
import dev.outbox.deploy.StrictManifests.InvalidManifest;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The real manifests, each changed in one place the way a hand slips: a key the API does not have,
 * at any object of any document, or a value of the wrong type at any scalar. The strict reader
 * refuses every one ({@link StrictManifestsTest} shows it takes the originals).
 */
class StrictManifestsPropertyTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final List<Document> DOCUMENTS = ManifestFiles.all();

    private final StrictManifests strict = StrictManifests.strict();

    /** A document with one change, and what the change was, for the report. */
    record Mutant(String where, JsonNode tree) {
        @Override
        public String toString() {
            return where;
        }
    }

    @Test
    void aKeyTheApiDoesNotHaveIsRefusedAtEveryObject() {
        qt().withExamples(1500)
                .forAll(unknownKeys())
                .checkAssert(mutant -> assertThrows(
                        InvalidManifest.class, () -> strict.read(mutant.tree(), mutant.where()), mutant.where()));
    }

    @Test
    void aValueOfAnotherTypeIsRefusedAtEveryScalar() {
        qt().withExamples(1500)
                .forAll(wrongTypes())
                .checkAssert(mutant -> assertThrows(
                        InvalidManifest.class, () -> strict.read(mutant.tree(), mutant.where()), mutant.where()));
    }

    /**
     * Any object of any document, chosen first, given a key of 1 to 16 characters (a-z, _, -, A, Z,
     * 0) its type does not have; one key in ten a single character (a, z, _, -, A, Z or 0).
     */
    Gen<Mutant> unknownKeys() {
        List<Character> keyChars = Stream.concat(
                        IntStream.rangeClosed('a', 'z').mapToObj(c -> (char) c), Stream.of('_', '-', 'A', 'Z', '0'))
                .toList();
        Gen<String> keys = lists().of(Generate.pick(keyChars))
                .ofSizeBetween(1, 16)
                .map(cs -> cs.stream().map(String::valueOf).collect(Collectors.joining()))
                .mix(Generate.pick(List.of("a", "z", "_", "-", "A", "Z", "0")), 10);
        List<Gen<Mutant>> each = new ArrayList<>();
        for (Document doc : DOCUMENTS) {
            for (Position at : Positions.of(doc.tree()).objects) {
                Set<String> known = StrictManifests.fieldNames(at.type());
                each.add(keys.assuming(k -> !known.contains(k)).map(key -> {
                    JsonNode copy = doc.tree().deepCopy();
                    ((ObjectNode) copy.at(at.at())).put(key, "x");
                    return new Mutant(doc.where() + " " + at.at() + "/" + key + " added", copy);
                }));
            }
        }
        return Generate.pick(each).flatMap(mutant -> mutant);
    }

    /** Any scalar of any document, chosen first, given one of the values of another type for it. */
    Gen<Mutant> wrongTypes() {
        List<Gen<Mutant>> each = new ArrayList<>();
        for (Document doc : DOCUMENTS) {
            for (Position at : Positions.of(doc.tree()).scalars) {
                JsonNode original = doc.tree().at(at.at());
                each.add(Generate.pick(wrong(at.type(), original)).map(replacement -> {
                    JsonNode copy = doc.tree().deepCopy();
                    JsonNode parent = copy.at(at.at().head());
                    String last = at.at().last().getMatchingProperty();
                    if (parent.isArray()) {
                        ((tools.jackson.databind.node.ArrayNode) parent)
                                .set(at.at().last().getMatchingIndex(), replacement);
                    } else {
                        ((ObjectNode) parent).set(last, replacement);
                    }
                    return new Mutant(doc.where() + " " + at.at() + " " + original + " -> " + replacement, copy);
                }));
            }
        }
        return Generate.pick(each).flatMap(mutant -> mutant);
    }

    /** Values the API refuses where it wants {@code type}, starting from the one written there. */
    private static List<JsonNode> wrong(Class<?> type, JsonNode original) {
        List<JsonNode> out =
                new ArrayList<>(List.of(NODES.objectNode().put("value", original.asString()), NODES.arrayNode()));
        if (type == String.class) {
            out.add(NODES.numberNode(original.asString().length()));
            out.add(NODES.numberNode(2.5));
            out.add(NODES.booleanNode(true));
        } else if (type == Integer.class || type == Long.class || type == int.class || type == long.class) {
            out.add(NODES.stringNode(original.asString()));
            out.add(NODES.numberNode(original.asLong() + 0.5));
            out.add(NODES.booleanNode(false));
        } else if (type == Boolean.class || type == boolean.class) {
            out.add(NODES.stringNode(original.asString()));
            out.add(NODES.numberNode(1));
        } else if (type == IntOrString.class) {
            out.add(NODES.booleanNode(true));
            out.add(NODES.numberNode(2.5));
        } else if (type == Quantity.class) {
            out.add(NODES.booleanNode(true));
            out.add(NODES.stringNode("lots"));
            out.add(NODES.stringNode(original.asString() + " "));
        }
        return out;
    }
}
