package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.outbox.deploy.ManifestFiles.Document;
import dev.outbox.deploy.Positions.Position;
import dev.outbox.deploy.StrictManifests.InvalidManifest;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
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

    @Property(tries = 1500)
    void aKeyTheApiDoesNotHaveIsRefusedAtEveryObject(@ForAll("unknownKeys") Mutant mutant) {
        assertThrows(InvalidManifest.class, () -> strict.read(mutant.tree(), mutant.where()), mutant.where());
    }

    @Property(tries = 1500)
    void aValueOfAnotherTypeIsRefusedAtEveryScalar(@ForAll("wrongTypes") Mutant mutant) {
        assertThrows(InvalidManifest.class, () -> strict.read(mutant.tree(), mutant.where()), mutant.where());
    }

    @Provide
    Arbitrary<Mutant> unknownKeys() {
        List<Arbitrary<Mutant>> each = new ArrayList<>();
        for (Document doc : DOCUMENTS) {
            for (Position at : Positions.of(doc.tree()).objects) {
                each.add(Arbitraries.strings()
                        .withCharRange('a', 'z')
                        .withChars('_', '-', 'A', 'Z', '0')
                        .ofMinLength(1)
                        .ofMaxLength(16)
                        .filter(k -> !StrictManifests.fieldNames(at.type()).contains(k))
                        .map(key -> {
                            JsonNode copy = doc.tree().deepCopy();
                            ((ObjectNode) copy.at(at.at())).put(key, "x");
                            return new Mutant(doc.where() + " " + at.at() + "/" + key + " added", copy);
                        }));
            }
        }
        return Arbitraries.oneOf(each);
    }

    @Provide
    Arbitrary<Mutant> wrongTypes() {
        List<Arbitrary<Mutant>> each = new ArrayList<>();
        for (Document doc : DOCUMENTS) {
            for (Position at : Positions.of(doc.tree()).scalars) {
                JsonNode original = doc.tree().at(at.at());
                each.add(Combinators.combine(Arbitraries.of(wrong(at.type(), original)), Arbitraries.integers())
                        .as((replacement, unused) -> {
                            JsonNode copy = doc.tree().deepCopy();
                            JsonNode parent = copy.at(at.at().head());
                            String last = at.at().last().getMatchingProperty();
                            if (parent.isArray()) {
                                ((tools.jackson.databind.node.ArrayNode) parent)
                                        .set(at.at().last().getMatchingIndex(), replacement);
                            } else {
                                ((ObjectNode) parent).set(last, replacement);
                            }
                            return new Mutant(
                                    doc.where() + " " + at.at() + " " + original + " -> " + replacement, copy);
                        }));
            }
        }
        return Arbitraries.oneOf(each);
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
