package dev.outbox.deploy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JsonPointer;
import tools.jackson.databind.JsonNode;

/**
 * The places of a manifest's tree, each with the Java type the API gives it: the objects (where a
 * key the type lacks must be refused) and the scalars (where a value of another type must be).
 * Maps are no object position: labels, annotations and ConfigMap data take any key.
 */
final class Positions {
    /** A place in one document's tree. */
    record Position(JsonPointer at, Class<?> type) {}

    final List<Position> objects = new ArrayList<>();
    final List<Position> scalars = new ArrayList<>();

    static Positions of(JsonNode doc) {
        Class<?> root = StrictManifests.KINDS.get(
                doc.path("apiVersion").asString() + "/" + doc.path("kind").asString());
        Positions p = new Positions();
        p.visit(doc, root, JsonPointer.empty());
        return p;
    }

    private void visit(JsonNode node, Type type, JsonPointer at) {
        Class<?> raw = raw(type);
        if (node == null || node.isNull() || raw == null) {
            return;
        }
        if (Map.class.isAssignableFrom(raw)) {
            Type values = argument(type, 1);
            for (var e : node.properties()) {
                visit(e.getValue(), values, at.appendProperty(e.getKey()));
            }
        } else if (List.class.isAssignableFrom(raw)) {
            Type elements = argument(type, 0);
            for (int i = 0; i < node.size(); i++) {
                visit(node.get(i), elements, at.appendIndex(i));
            }
        } else if (raw == IntOrString.class
                || raw == Quantity.class
                || !raw.getName().startsWith("io.fabric8.")) {
            if (node.isValueNode()) {
                scalars.add(new Position(at, raw));
            }
        } else {
            objects.add(new Position(at, raw));
            for (var e : node.properties()) {
                Field f = field(raw, e.getKey());
                if (f != null) {
                    visit(e.getValue(), f.getGenericType(), at.appendProperty(e.getKey()));
                }
            }
        }
    }

    private static Field field(Class<?> type, String json) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                var p = f.getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
                if (p != null && p.value().equals(json)) {
                    return f;
                }
            }
        }
        return null;
    }

    private static Class<?> raw(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        return null;
    }

    private static Type argument(Type type, int i) {
        return type instanceof ParameterizedType p ? p.getActualTypeArguments()[i] : Object.class;
    }
}
