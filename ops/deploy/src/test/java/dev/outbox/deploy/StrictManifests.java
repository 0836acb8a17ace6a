package dev.outbox.deploy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads manifests into the Kubernetes API's types (fabric8's model) as strictly as the API server
 * does: a value of the wrong type fails (no coercion: {@code replicas: "3"}, {@code value: 10},
 * {@code readOnlyRootFilesystem: "true"} are each refused), a key twice fails, a kind this service
 * does not deploy fails, and so does any field the type does not have. That last one takes a walk:
 * fabric8's types keep every key they do not know in {@code additionalProperties} instead of
 * failing, so reading alone accepts {@code livenesProbe:} without a word, and the probe is gone.
 */
final class StrictManifests {
    /** The kinds the manifests may hold, by {@code apiVersion/kind}. */
    static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "apps/v1/Deployment", Deployment.class,
            "v1/Service", Service.class,
            "v1/ConfigMap", ConfigMap.class,
            "v1/Secret", Secret.class,
            "policy/v1/PodDisruptionBudget", PodDisruptionBudget.class,
            "autoscaling/v2/HorizontalPodAutoscaler", HorizontalPodAutoscaler.class);

    static final YAMLMapper MAPPER = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            .disable(DeserializationFeature.ACCEPT_EMPTY_STRING_AS_NULL_OBJECT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            // a number or a boolean where the API wants a string (an env value, a label, ConfigMap
            // data) is refused by the API server; Jackson would quietly make it a string
            .withCoercionConfig(
                    LogicalType.Textual,
                    c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                            .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                            .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .withCoercionConfig(
                    LogicalType.Integer,
                    c -> c.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                            .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                            .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .withCoercionConfig(
                    LogicalType.Boolean,
                    c -> c.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                            .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail))
            // fabric8 reads a quantity from any scalar and an int-or-string from anything at all
            .addMixIn(Quantity.class, StrictQuantity.Mixin.class)
            .addMixIn(IntOrString.class, StrictIntOrString.Mixin.class)
            .build();

    /** Whether the walk for fields nobody knows runs: off only to see the property tests fail without it. */
    private final boolean walk;

    private StrictManifests(boolean walk) {
        this.walk = walk;
    }

    static StrictManifests strict() {
        return new StrictManifests(true);
    }

    /** Deserialization alone, as most tools do it: what fabric8 accepts by default. */
    static StrictManifests withoutTheWalk() {
        return new StrictManifests(false);
    }

    /** Every document of a YAML stream, empty ones (a trailing {@code ---}) left out. */
    static List<JsonNode> documents(String yaml) {
        List<JsonNode> out = new ArrayList<>();
        try (var docs = MAPPER.readerFor(JsonNode.class).<JsonNode>readValues(yaml)) {
            while (docs.hasNextValue()) {
                JsonNode doc = docs.nextValue();
                if (doc != null && !doc.isMissingNode() && !doc.isNull()) {
                    out.add(doc);
                }
            }
        } catch (JacksonException e) {
            throw new InvalidManifest("not YAML the API server reads: " + e.getOriginalMessage(), e);
        }
        return out;
    }

    /** The document as its API type; {@link InvalidManifest} naming where when it is not one. */
    HasMetadata read(JsonNode doc, String where) {
        String key =
                doc.path("apiVersion").asString("") + "/" + doc.path("kind").asString("");
        Class<? extends HasMetadata> type = KINDS.get(key);
        if (type == null) {
            throw new InvalidManifest(where + ": " + key + " is not a kind these manifests deploy " + KINDS.keySet());
        }
        HasMetadata object;
        try {
            object = MAPPER.treeToValue(doc, type);
        } catch (JacksonException e) {
            throw new InvalidManifest(where + ": " + e.getOriginalMessage() + " at " + e.getPathReference(), e);
        }
        if (walk) {
            List<String> unknown = new ArrayList<>();
            unknownFields(object, type.getSimpleName(), unknown, new IdentityHashMap<>());
            if (!unknown.isEmpty()) {
                throw new InvalidManifest(where + ": fields the API does not have: " + unknown);
            }
        }
        return object;
    }

    /** Collects the path of every key a fabric8 object kept aside because its type has no such field. */
    static void unknownFields(Object value, String path, List<String> found, Map<Object, Object> seen) {
        if (value == null || seen.put(value, value) != null) {
            return;
        }
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                unknownFields(item, path + "[" + i++ + "]", found, seen);
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> unknownFields(v, path + "." + k, found, seen));
            return;
        }
        Class<?> type = value.getClass();
        if (!type.getName().startsWith("io.fabric8.")) {
            return;
        }
        Map<String, Object> extra = additionalProperties(value);
        extra.keySet().forEach(k -> found.add(path + "." + k));
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                var json = f.getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
                if (json == null || java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                f.setAccessible(true);
                try {
                    unknownFields(f.get(value), path + "." + json.value(), found, seen);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> additionalProperties(Object value) {
        try {
            Method m = value.getClass().getMethod("getAdditionalProperties");
            Object extra = m.invoke(value);
            return extra == null ? Map.of() : (Map<String, Object>) extra;
        } catch (NoSuchMethodException e) {
            return Map.of();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JSON names of a fabric8 type's fields. */
    static Set<String> fieldNames(Class<?> type) {
        Set<String> names = new java.util.TreeSet<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                var json = f.getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
                if (json != null) {
                    names.add(json.value());
                }
            }
        }
        return names;
    }

    /** A quantity as the API reads it: a number, or a string of its grammar ({@code 500m}, {@code 1Gi}, {@code 1e3}). */
    static final class StrictQuantity extends ValueDeserializer<Quantity> {
        private static final Pattern GRAMMAR =
                Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+|[numkMGTPE]|[KMGTPE]i)?");

        @JsonDeserialize(using = StrictQuantity.class)
        abstract static class Mixin {}

        @Override
        public Quantity deserialize(JsonParser p, DeserializationContext ctxt) {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
                return new Quantity(p.getString());
            }
            if (t == JsonToken.VALUE_STRING) {
                if (GRAMMAR.matcher(p.getString()).matches()) {
                    return new Quantity(p.getString());
                }
                return (Quantity) ctxt.reportInputMismatch(Quantity.class, "not a quantity: '%s'", p.getString());
            }
            return (Quantity) ctxt.handleUnexpectedToken(Quantity.class, p);
        }
    }

    /** A port or a count as the API reads it: a whole number, or a string (a port's name, a percentage). */
    static final class StrictIntOrString extends ValueDeserializer<IntOrString> {
        @JsonDeserialize(using = StrictIntOrString.class)
        abstract static class Mixin {}

        @Override
        public IntOrString deserialize(JsonParser p, DeserializationContext ctxt) {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_NUMBER_INT) {
                return new IntOrString(p.getIntValue());
            }
            if (t == JsonToken.VALUE_STRING) {
                return new IntOrString(p.getString());
            }
            return (IntOrString) ctxt.handleUnexpectedToken(IntOrString.class, p);
        }
    }

    /** A manifest the API server would refuse. */
    static final class InvalidManifest extends IllegalArgumentException {
        InvalidManifest(String message) {
            super(message);
        }

        InvalidManifest(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
