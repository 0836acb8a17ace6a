package dev.outbox.api.http;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.outbox.kernel.json.Json;
import jakarta.ws.rs.ext.ContextResolver;
import jakarta.ws.rs.ext.Provider;

/**
 * The API's JSON: the project's mapper, stricter on input. Unknown fields are refused, and a
 * number is never silently turned into a money string ({@code 42.5} may already have been a
 * binary float on the client).
 */
@Provider
@jakarta.inject.Singleton
public final class JsonConfig implements ContextResolver<ObjectMapper> {
    private final ObjectMapper mapper;

    public JsonConfig() {
        ObjectMapper m = Json.mapper().copy();
        m.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        m.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        m.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        this.mapper = m;
    }

    @Override
    public ObjectMapper getContext(Class<?> type) {
        return mapper;
    }

    public ObjectMapper mapper() {
        return mapper;
    }
}
