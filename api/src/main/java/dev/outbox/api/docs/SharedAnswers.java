package dev.outbox.api.docs;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What {@code /openapi.json} says about every operation because the layers in front of the
 * resources answer it, added once here rather than on each of them. Each rule is the rule of the
 * filter that gives the answer:
 *
 * <ul>
 *   <li>every operation: 406 (content negotiation), 413 ({@code BodyLimitFilter}), 414 and 431
 *       (Grizzly's limits on the request line and head), and 400 for a malformed request
 *       ({@code RequestSyntaxFilter}, {@code GrizzlyProblems});
 *   <li>every POST: 415 (it consumes {@code application/json} only);
 *   <li>{@code /orders}: the request headers {@code RequestMetadataFilter} reads, the
 *       {@code Idempotency-Key} of a POST, 400 for invalid input and 503 when the database is away;
 *   <li>an operation marked {@link Answers}: what the code it shares answers
 *       ({@link #shared(Answers.Shared, Operation)}, written by {@link MethodDocs});
 *   <li>{@code /ops}: the bearer token ({@code OpsAuthFilter}: 401, 403 for a read-only token on
 *       an action, 503 when no operator token is configured) and 400 for invalid input.
 * </ul>
 *
 * A 4xx or 5xx an operation declares without a body gets the problem document as its body: every
 * error of this API is {@code application/problem+json}.
 */
final class SharedAnswers {
    static final String OPS_TOKEN = "opsToken";
    static final String IDEMPOTENCY_KEY = "IdempotencyKey";
    static final String CORRELATION_ID = "CorrelationId";
    static final String TENANT_ID = "TenantId";
    static final String TRACEPARENT = "Traceparent";
    static final String MALFORMED_REQUEST = "MalformedRequest";
    static final String NOT_ACCEPTABLE = "NotAcceptable";
    static final String PAYLOAD_TOO_LARGE = "PayloadTooLarge";
    static final String URI_TOO_LONG = "UriTooLong";
    static final String UNSUPPORTED_MEDIA_TYPE = "UnsupportedMediaType";
    static final String HEADER_FIELDS_TOO_LARGE = "HeaderFieldsTooLarge";

    private static final String INVALID_INPUT = "Invalid input: validation_failed (with errors), malformed_json,"
            + " invalid_id; or a malformed request (see MalformedRequest in components/responses:"
            + " invalid_request_target, invalid_header, invalid_framing, invalid_query, body_unreadable).";

    private SharedAnswers() {}

    static void apply(OpenAPI api) {
        api.getPaths()
                .forEach((path, item) -> item.readOperationsMap().forEach((verb, op) -> {
                    apply(path, verb, op);
                }));
    }

    private static void apply(String path, PathItem.HttpMethod verb, Operation op) {
        ApiResponses responses = op.getResponses() == null ? new ApiResponses() : op.getResponses();
        boolean post = verb == PathItem.HttpMethod.POST;
        boolean orders = path.startsWith("/orders");
        boolean ops = path.startsWith("/ops");
        shared(responses, "406", NOT_ACCEPTABLE);
        shared(responses, "413", PAYLOAD_TOO_LARGE);
        shared(responses, "414", URI_TOO_LONG);
        shared(responses, "431", HEADER_FIELDS_TOO_LARGE);
        if (post) {
            shared(responses, "415", UNSUPPORTED_MEDIA_TYPE);
        }
        if (orders || ops) {
            responses.putIfAbsent("400", OpenApiDocument.problem(INVALID_INPUT));
        } else {
            shared(responses, "400", MALFORMED_REQUEST);
        }
        if (orders) {
            responses.putIfAbsent(
                    "503",
                    OpenApiDocument.problem(
                            "service_unavailable: the database is unreachable or refusing statements for now."));
            List<Parameter> parameters = new ArrayList<>(op.getParameters() == null ? List.of() : op.getParameters());
            if (post) {
                parameters.add(reference(IDEMPOTENCY_KEY));
            }
            parameters.add(reference(CORRELATION_ID));
            parameters.add(reference(TENANT_ID));
            parameters.add(reference(TRACEPARENT));
            op.setParameters(parameters);
        }
        if (ops) {
            op.setSecurity(List.of(new SecurityRequirement().addList(OPS_TOKEN)));
            responses.putIfAbsent(
                    "401",
                    OpenApiDocument.problem("unauthorized: no or wrong bearer token. Checked before anything else"
                            + " about the request (path, method, media type, body size), so a caller without a"
                            + " valid token learns nothing but this."));
            if (post) {
                responses.putIfAbsent(
                        "403", OpenApiDocument.problem("forbidden: the read-only token asked for an action."));
            }
            responses.putIfAbsent("503", OpenApiDocument.problem("ops_disabled: OUTBOX_OPS_TOKEN is not set."));
        }
        responses.forEach((code, r) -> {
            if (code.charAt(0) >= '4' && r.get$ref() == null && r.getContent() == null) {
                r.setContent(OpenApiDocument.problemContent());
            }
        });
        op.setResponses(sorted(responses));
    }

    /** What an operation marked {@link Answers} answers because of the code it shares. */
    static void shared(Answers.Shared kind, Operation op) {
        ApiResponses responses = op.getResponses() == null ? new ApiResponses() : op.getResponses();
        switch (kind) {
            case ORDER_TRANSITION -> {
                responses.putIfAbsent("404", OpenApiDocument.problem("not_found: no such order, or another tenant's."));
                responses.putIfAbsent(
                        "409",
                        OpenApiDocument.problem("illegal_transition: not allowed in the order's current state."));
                responses.putIfAbsent(
                        "422",
                        OpenApiDocument.problem("idempotency_key_reused, or a business rule (capture_amount_mismatch,"
                                + " capture_currency_mismatch)."));
            }
            case PAGE_FILE -> {
                responses.putIfAbsent(
                        "200",
                        new ApiResponse()
                                .description("The file.")
                                .content(new Content()
                                        .addMediaType(
                                                "application/javascript", new MediaType().schema(new StringSchema()))
                                        .addMediaType("text/css", new MediaType().schema(new StringSchema()))));
                responses.putIfAbsent("404", OpenApiDocument.problem("Any other name."));
                responses.remove("default");
            }
        }
        op.setResponses(responses);
    }

    private static void shared(ApiResponses responses, String code, String name) {
        responses.putIfAbsent(code, new ApiResponse().$ref("#/components/responses/" + name));
    }

    private static Parameter reference(String name) {
        return new Parameter().$ref("#/components/parameters/" + name);
    }

    private static ApiResponses sorted(ApiResponses responses) {
        ApiResponses out = new ApiResponses();
        responses.entrySet().stream()
                .sorted(Map.Entry.comparingByKey(Comparator.naturalOrder()))
                .forEach(e -> out.addApiResponse(e.getKey(), e.getValue()));
        return out;
    }
}
