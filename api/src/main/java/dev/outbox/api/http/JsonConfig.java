package dev.outbox.api.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.outbox.kernel.json.Json;
import jakarta.ws.rs.ext.ContextResolver;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * The API's JSON: the project's mapper, stricter on input. Unknown fields and anything after the
 * document are refused; a number is never silently turned into a money string ({@code 42.5} may
 * already have been a binary float on the client); a boolean is {@code true} or {@code false},
 * never {@code ""}, {@code 0} or {@code -1}; text PostgreSQL cannot store and instants it cannot
 * hold are refused with the field named ({@link StorableValues}).
 */
@Provider
@jakarta.inject.Singleton
public final class JsonConfig implements ContextResolver<ObjectMapper> {
    private final ObjectMapper mapper;

    public JsonConfig() {
        ObjectMapper m = Json.mapper().copy();
        m.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        m.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        m.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        m.coercionConfigFor(LogicalType.Integer)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        m.coercionConfigFor(LogicalType.Boolean)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        m.registerModule(new SimpleModule("storable-values")
                .addDeserializer(String.class, new StorableText())
                .addDeserializer(Instant.class, new StorableInstant()));
        this.mapper = m;
    }

    @Override
    public ObjectMapper getContext(Class<?> type) {
        return mapper;
    }

    public ObjectMapper mapper() {
        return mapper;
    }

    /** Jackson's own string reading, then the storability check: one place for every field. */
    private static final class StorableText extends StdScalarDeserializer<String> {
        private static final long serialVersionUID = 1L;

        StorableText() {
            super(String.class);
        }

        @Override
        public LogicalType logicalType() {
            return LogicalType.Textual;
        }

        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String text = StringDeserializer.instance.deserialize(p, ctxt);
            String defect = text == null ? null : StorableValues.textDefect(text);
            if (defect != null) {
                throw new InvalidValueException(p, String.class, defect);
            }
            return text;
        }
    }

    /**
     * An ISO-8601 date-time with an offset, as a JSON string only (an epoch number is refused: is
     * it seconds or milliseconds?), within the years PostgreSQL and ISO-8601 share.
     */
    private static final class StorableInstant extends StdScalarDeserializer<Instant> {
        private static final long serialVersionUID = 1L;

        StorableInstant() {
            super(Instant.class);
        }

        @Override
        public LogicalType logicalType() {
            return LogicalType.DateTime;
        }

        @Override
        public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (!p.hasToken(JsonToken.VALUE_STRING)) {
                return (Instant) ctxt.handleUnexpectedToken(Instant.class, p);
            }
            Instant instant;
            try {
                instant = OffsetDateTime.parse(p.getText().trim()).toInstant();
            } catch (DateTimeParseException e) {
                throw new InvalidValueException(
                        p, Instant.class, "must be an ISO-8601 date-time such as 2026-11-30T09:00:00Z");
            }
            String defect = StorableValues.instantDefect(instant);
            if (defect != null) {
                throw new InvalidValueException(p, Instant.class, defect);
            }
            return instant;
        }
    }
}
