package dev.outbox.api.docs;

import dev.outbox.api.console.ConsoleResource;
import dev.outbox.api.health.HealthResource;
import dev.outbox.api.health.MetricsResource;
import dev.outbox.api.http.Problem;
import dev.outbox.api.http.RequestMetadataFilter;
import dev.outbox.api.ops.OpsActionsResource;
import dev.outbox.api.ops.OpsBulkResource;
import dev.outbox.api.ops.OpsRegistryResource;
import dev.outbox.api.ops.OpsResource;
import dev.outbox.api.orders.OrderResource;
import dev.outbox.domain.Violation;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.core.util.Json31;
import io.swagger.v3.jaxrs2.Reader;
import io.swagger.v3.oas.integration.SwaggerConfiguration;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.HeaderParameter;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.swagger.v3.oas.models.parameters.PathParameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.tags.Tag;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * {@code /openapi.json}, generated at start from the JAX-RS resources (their {@code @Operation}
 * annotations, and {@link MethodDocs}' own: {@link Example}, {@link Fixture}, {@link ConsoleAction},
 * {@link Returns}) and the view types they take and return (records with {@code @Schema}): the
 * operations, parameters, bodies and answers cannot drift from the code that serves them. What
 * every operation shares because a filter answers it, not the resource (406, 413, 414, 415, 431,
 * a malformed request, the operator token, the request headers), is added by {@link
 * SharedAnswers} from the same rules the filters follow. {@code OpenApiContractIT} sends every
 * documented example to the running API and checks the answer against the document.
 */
public final class OpenApiDocument {
    /** Every resource the API serves; {@code HttpApi} refuses to serve one that is not here. */
    public static final List<Class<?>> RESOURCES = List.of(
            OrderResource.class,
            OpsResource.class,
            OpsActionsResource.class,
            OpsBulkResource.class,
            OpsRegistryResource.class,
            HealthResource.class,
            MetricsResource.class,
            DocumentsResource.class,
            ConsoleResource.class);

    static final String PROBLEM = "Problem";

    private OpenApiDocument() {}

    /** The document for the API of build {@code version}, as JSON. */
    public static String generate(String version) {
        SwaggerConfiguration config = new SwaggerConfiguration()
                .openAPI(base(version))
                .openAPI31(true)
                .sortOutput(false);
        Reader reader = new Reader(config);
        OpenAPI api = reader.read(new LinkedHashSet<>(RESOURCES));
        MethodDocs.apply(api, RESOURCES);
        ModelConverters.getInstance(true).readAll(Problem.class).forEach(api.getComponents()::addSchemas);
        // the domain is plain Java (no annotations of ours): its one type in an answer is closed here
        Schema<?> violation = api.getComponents().getSchemas().get(Violation.class.getSimpleName());
        violation.setRequired(List.of("field", "message"));
        violation.setAdditionalProperties(false);
        SharedAnswers.apply(api);
        // statuses and error codes are an open set: a newer version's names are shown and matched
        OpenNames.apply(api);
        api.getComponents().getSchemas().values().forEach(OpenApiDocument::nullableEnumsTakeNull);
        return Json31.pretty(api);
    }

    /**
     * A property that may be null and has a list of values must list null among them, or JSON
     * Schema refuses the null its type allows ({@code BulkRetryRequest.status}: null is absent).
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    private static void nullableEnumsTakeNull(Schema<?> schema) {
        if (schema.getProperties() == null) {
            return;
        }
        for (Schema property : schema.getProperties().values()) {
            if (property.getEnum() != null
                    && property.getTypes() != null
                    && property.getTypes().contains("null")
                    && !property.getEnum().contains(null)) {
                List values = new ArrayList<>(property.getEnum());
                values.add(null);
                property.setEnum(values);
            }
        }
    }

    private static OpenAPI base(String version) {
        return new OpenAPI()
                .info(new Info()
                        .title("Transactional outbox order service")
                        .version(version)
                        .description("Orders over HTTP; every state change records its domain event in the same"
                                + " transaction (the outbox). The relay publishes them: see /asyncapi.json. Money is"
                                + " a decimal string. Errors are application/problem+json with a stable code. /ops"
                                + " needs a bearer token (OUTBOX_OPS_TOKEN for actions, OUTBOX_OPS_READ_TOKEN for"
                                + " reading). Every error, whichever layer answers it, is application/problem+json:"
                                + " a request body over OUTBOX_HTTP_MAX_BODY (default 1 MiB) is 413, answered"
                                + " before the body is read when its Content-Length says so; a request head over 8"
                                + " KiB is 431 (a request line over 8 KiB 414); a method a path does not serve is"
                                + " 405 with Allow; text PostgreSQL cannot store (the NUL character, an unpaired"
                                + " surrogate) is 400 naming the field."))
                .tags(List.of(
                        new Tag().name("orders"),
                        new Tag()
                                .name("ops")
                                .description("Operators: inspect and repair outbox rows, register the contracts and"
                                        + " queues of a service that runs none of the outbox's code. Every action is"
                                        + " audited."),
                        new Tag().name("health"),
                        new Tag().name("documents"),
                        new Tag().name("console").description("The operator console, a web page on the /ops API")))
                .components(new Components()
                        .securitySchemes(Map.of(
                                SharedAnswers.OPS_TOKEN,
                                new SecurityScheme()
                                        .type(SecurityScheme.Type.HTTP)
                                        .scheme("bearer")
                                        .description("OUTBOX_OPS_TOKEN (operator) or OUTBOX_OPS_READ_TOKEN"
                                                + " (read-only). Optional X-Operator header names the person in"
                                                + " the audit log.")))
                        .parameters(headers())
                        .responses(sharedResponses()));
    }

    /**
     * The request headers every order operation reads ({@link RequestMetadataFilter}), and the ids
     * in paths ({@code @Parameter(ref = ...)} on the resources).
     */
    private static Map<String, Parameter> headers() {
        return Map.of(
                "OrderId",
                pathId("The order id."),
                "RowId",
                pathId("The outbox row id (the AMQP messageId)."),
                SharedAnswers.IDEMPOTENCY_KEY,
                header(
                        RequestMetadataFilter.IDEMPOTENCY_KEY,
                        new StringSchema()
                                .minLength(1)
                                .maxLength(RequestMetadataFilter.MAX_IDEMPOTENCY_KEY_LENGTH)
                                .pattern("^[!-~]+$"),
                        "1-" + RequestMetadataFilter.MAX_IDEMPOTENCY_KEY_LENGTH
                                + " visible ASCII characters. Repeating a POST with the same key returns the first"
                                + " response and writes nothing; the same key with a different request is 422"
                                + " idempotency_key_reused."),
                SharedAnswers.CORRELATION_ID,
                header(
                        RequestMetadataFilter.CORRELATION_ID,
                        new StringSchema().pattern("^" + RequestMetadataFilter.CORRELATION_ID_PATTERN + "$"),
                        "Generated when absent; echoed; carried onto the events."),
                SharedAnswers.TENANT_ID,
                header(
                        RequestMetadataFilter.TENANT_ID,
                        new StringSchema().pattern("^" + RequestMetadataFilter.TENANT_ID_PATTERN + "$"),
                        "An order belongs to the tenant it was placed with; other tenants get 404."),
                SharedAnswers.TRACEPARENT,
                header(
                        RequestMetadataFilter.TRACEPARENT,
                        new StringSchema(),
                        "W3C trace context, carried onto the events; ignored when malformed."));
    }

    /** A UUID in the path: the resources refuse any other spelling with 400 {@code invalid_id}. */
    private static Parameter pathId(String description) {
        return new PathParameter()
                .name("id")
                .required(true)
                .schema(new StringSchema().format("uuid"))
                .description(description);
    }

    private static Parameter header(String name, Schema<?> schema, String description) {
        return new HeaderParameter().name(name).schema(schema).description(description);
    }

    /** The answers a filter or the HTTP server gives, whichever operation was asked for. */
    private static Map<String, ApiResponse> sharedResponses() {
        return Map.of(
                SharedAnswers.MALFORMED_REQUEST,
                problem("The request itself is malformed: a %-escape that is not two hex digits or a Host that is"
                        + " not a host (invalid_request_target), a Content-Type or Accept that is not a media type"
                        + " (invalid_header), two Content-Length headers or one beside Transfer-Encoding"
                        + " (invalid_framing), the NUL character in the path or a query parameter (invalid_path,"
                        + " invalid_query), a body that ends before its Content-Length or broken chunked encoding"
                        + " (body_unreadable), an HTTP version other than 1.0 and 1.1 (unsupported_http_version),"
                        + " no Host header (malformed_request)."),
                SharedAnswers.NOT_ACCEPTABLE,
                problem("not_acceptable: no media type the Accept header names is one this operation answers with."),
                SharedAnswers.PAYLOAD_TOO_LARGE,
                problem("payload_too_large: the body is larger than OUTBOX_HTTP_MAX_BODY (default 1 MiB). A"
                        + " Content-Length over the limit is answered before the body is read; a chunked body is"
                        + " answered when the limit is passed. The connection is closed after the answer."),
                SharedAnswers.URI_TOO_LONG,
                problem("uri_too_long: the request line is longer than 8 KiB."),
                SharedAnswers.UNSUPPORTED_MEDIA_TYPE,
                problem("unsupported_media_type: send application/json."),
                SharedAnswers.HEADER_FIELDS_TOO_LARGE,
                problem("request_header_fields_too_large: the request head is larger than 8 KiB, or has more than"
                        + " 100 header fields."));
    }

    static ApiResponse problem(String description) {
        return new ApiResponse().description(description).content(problemContent());
    }

    static Content problemContent() {
        return new Content()
                .addMediaType(
                        Problem.MEDIA_TYPE,
                        new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + PROBLEM)));
    }
}
