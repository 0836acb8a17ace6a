package dev.outbox.api.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.outbox.domain.Violation;
import dev.outbox.kernel.json.Json;
import io.swagger.v3.oas.annotations.media.Schema;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * An RFC 9457 problem: {@code type}, {@code title}, {@code status}, {@code detail}, plus a stable
 * {@code code}, the field {@code errors} of a validation failure, the {@code errorId} of a 5xx
 * (also in the server log), and the request's correlation id.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(
        description =
                "RFC 9457 problem details; code is stable and named in the README. errorId (5xx only) is also in the server log.",
        additionalProperties = Schema.AdditionalPropertiesValue.FALSE)
public record Problem(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String type,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String title,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) int status,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String detail,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String code,
        List<Violation> errors,
        String errorId,
        String correlationId) {

    public static final String MEDIA_TYPE = "application/problem+json";

    public static Problem of(int status, String code, String title, String detail) {
        return new Problem("/problems/" + code, title, status, detail, code, null, null, null);
    }

    public Problem withErrors(List<Violation> violations) {
        return new Problem(type, title, status, detail, code, List.copyOf(violations), errorId, correlationId);
    }

    public Problem withErrorId(String id) {
        return new Problem(type, title, status, detail, code, errors, id, correlationId);
    }

    public Problem withCorrelationId(String id) {
        return new Problem(type, title, status, detail, code, errors, errorId, id);
    }

    /** The problem as the JSON body of an answer written outside Jersey (by Grizzly's own filters). */
    public byte[] toJson() {
        return Json.write(this).getBytes(StandardCharsets.UTF_8);
    }
}
