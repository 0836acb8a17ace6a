package dev.outbox.api.docs;

import dev.outbox.kernel.outbox.Codes;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxStatus;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Statuses and error codes in {@code /openapi.json}: an open set, never a closed {@code enum}. In a
 * rolling upgrade a newer version writes a status or code this one has no name for; the operator
 * API shows it as stored and filters by it, so the document gives the stored shape ({@link
 * Codes#SHAPE}) as a {@code pattern} and lists the names this version knows in the description and
 * in {@code x-known-values}. An answer holding a newer name still validates against the document.
 */
final class OpenNames {
    static final String PATTERN = "^" + Codes.SHAPE.pattern() + "$";
    static final String KNOWN = "x-known-values";
    private static final String SHAPE =
            "an upper-case letter, then upper-case letters, digits or _, at most 40 characters in all";

    private static final Kind STATUS = new Kind("status", names(OutboxStatus.values()));
    private static final Kind ERROR_CODE = new Kind("error code", names(ErrorCode.values()));

    /** The views' properties that hold a stored status or code ({@code outbox-ops-views} carries no kernel). */
    private static final List<Field> PROPERTIES = List.of(
            new Field("OutboxRow", "status", STATUS),
            new Field("OutboxRow", "lastErrorCode", ERROR_CODE),
            new Field("Blocker", "status", STATUS),
            new Field("Blocker", "lastErrorCode", ERROR_CODE),
            new Field("BlockedAggregate", "errorCode", ERROR_CODE),
            new Field("BulkRetryRequest", "errorCode", ERROR_CODE));

    /** The query parameters that filter by one (operation id, parameter name). */
    private static final List<Field> QUERY_PARAMETERS =
            List.of(new Field("searchOutbox", "status", STATUS), new Field("searchOutbox", "errorCode", ERROR_CODE));

    private record Kind(String what, List<String> known) {
        String listed() {
            return String.join(", ", known);
        }
    }

    private record Field(String owner, String name, Kind kind) {}

    private OpenNames() {}

    static void apply(OpenAPI api) {
        @SuppressWarnings("rawtypes")
        Map<String, Schema> schemas = api.getComponents().getSchemas();
        for (Field f : PROPERTIES) {
            Schema<?> owner = schemas.get(f.owner());
            Schema<?> property = owner == null || owner.getProperties() == null
                    ? null
                    : owner.getProperties().get(f.name());
            if (property == null) {
                // a renamed view would otherwise go back to whatever swagger makes of a string, silently
                throw new IllegalStateException("the document has no " + f.owner() + "." + f.name());
            }
            String words = f.owner().endsWith("Request")
                    ? "Only rows whose " + f.kind().what() + " is this one, as stored: " + SHAPE + ". One this"
                            + " version does not know (a newer version wrote it) matches the rows that have it."
                            + " Known to this version: " + f.kind().listed() + "."
                    : "The " + f.kind().what() + " as stored: " + SHAPE + ". One of those this version knows ("
                            + f.kind().listed() + "), or one a newer version wrote, shown as it is.";
            open(property, words, f.kind());
        }
        for (Field f : QUERY_PARAMETERS) {
            Parameter p = queryParameter(api, f.owner(), f.name());
            open(p.getSchema(), null, f.kind());
            p.setDescription("Only rows whose " + f.kind().what() + " is this one, as stored: " + SHAPE + ". One"
                    + " this version does not know (a newer version wrote it) matches the rows that have it, or"
                    + " none; another form is 400 validation_failed. Known to this version: "
                    + f.kind().listed()
                    + ".");
        }
    }

    private static void open(Schema<?> schema, String description, Kind kind) {
        schema.setEnum(null);
        schema.setPattern(PATTERN);
        schema.addExtension(KNOWN, kind.known());
        if (description != null) {
            schema.setDescription(
                    schema.getDescription() == null ? description : schema.getDescription() + " " + description);
        }
    }

    private static Parameter queryParameter(OpenAPI api, String operationId, String name) {
        for (PathItem item : api.getPaths().values()) {
            for (Operation op : item.readOperations()) {
                if (operationId.equals(op.getOperationId()) && op.getParameters() != null) {
                    for (Parameter p : op.getParameters()) {
                        if (name.equals(p.getName()) && "query".equals(p.getIn()) && p.getSchema() != null) {
                            return p;
                        }
                    }
                }
            }
        }
        throw new IllegalStateException("the document has no query parameter " + name + " of " + operationId);
    }

    private static List<String> names(Enum<?>[] values) {
        return Arrays.stream(values).map(Enum::name).toList();
    }
}
