package dev.outbox.kernel.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one Jackson configuration of this codebase: ISO-8601 instants (never epoch numbers),
 * decimals as {@link java.math.BigDecimal} (never binary floating point for money), and strict
 * parsing (trailing tokens and duplicate keys are errors, not silently ignored).
 */
public final class Json {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private Json() {}

    /** The shared, thread-safe mapper. Do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "cannot serialise " + value.getClass().getName(), e);
        }
    }

    /**
     * Parses any JSON text into plain Java: maps, lists, strings, numbers, booleans, null.
     *
     * @throws JsonProcessingException when the text is not one valid JSON value
     */
    public static Object parseTree(String json) throws JsonProcessingException {
        return MAPPER.readValue(json, Object.class);
    }
}
