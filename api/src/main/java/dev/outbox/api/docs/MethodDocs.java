package dev.outbox.api.docs;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.swagger.v3.core.converter.AnnotatedType;
import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.core.converter.ResolvedSchema;
import io.swagger.v3.core.util.Json31;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a resource method says of itself beyond swagger's own annotations: its {@link Example}s,
 * its {@link Fixture}, its {@link ConsoleAction}, the {@link Answers} of the code it shares, and its success body (the view type it returns,
 * or {@link Returns}; a page or text it builds as a string is what its {@code @Produces} says). Each is written into the operation the method's {@code @Operation} names.
 */
final class MethodDocs {
    private MethodDocs() {}

    static void apply(OpenAPI api, List<Class<?>> resources) {
        Map<String, Operation> byId = new HashMap<>();
        api.getPaths().values().forEach(item -> item.readOperations().forEach(op -> byId.put(op.getOperationId(), op)));
        for (Class<?> resource : resources) {
            for (Method m : resource.getDeclaredMethods()) {
                io.swagger.v3.oas.annotations.Operation declared =
                        m.getAnnotation(io.swagger.v3.oas.annotations.Operation.class);
                if (declared == null) {
                    continue;
                }
                Operation op = byId.get(declared.operationId());
                if (op == null) {
                    throw new IllegalStateException(resource.getSimpleName() + "." + m.getName() + " names operation "
                            + declared.operationId() + ", which the document does not have");
                }
                examples(op, m);
                Fixture fixture = m.getAnnotation(Fixture.class);
                if (fixture != null) {
                    op.addExtension("x-fixture", fixture.value());
                }
                Answers answers = m.getAnnotation(Answers.class);
                if (answers != null) {
                    SharedAnswers.shared(answers.value(), op);
                }
                ConsoleAction console = m.getAnnotation(ConsoleAction.class);
                if (console != null) {
                    Map<String, Object> button = new LinkedHashMap<>();
                    button.put("label", console.label());
                    button.put("order", console.order());
                    if (console.needsReason()) {
                        button.put("needs", "reason");
                    }
                    if (console.danger()) {
                        button.put("style", "danger");
                    }
                    op.addExtension("x-console", button);
                }
                successBody(api, op, resource, m);
            }
        }
    }

    private static void examples(Operation op, Method m) {
        Example[] examples = m.getAnnotationsByType(Example.class);
        if (examples.length == 0) {
            return;
        }
        if (op.getRequestBody() == null || op.getRequestBody().getContent() == null) {
            throw new IllegalStateException(op.getOperationId() + " has examples but takes no body");
        }
        MediaType json = op.getRequestBody().getContent().get(jakarta.ws.rs.core.MediaType.APPLICATION_JSON);
        Map<String, io.swagger.v3.oas.models.examples.Example> out = new LinkedHashMap<>();
        for (Example e : examples) {
            try {
                out.put(
                        e.name(),
                        new io.swagger.v3.oas.models.examples.Example()
                                .summary(e.summary())
                                .value(Json31.mapper().readTree(e.body()))
                                .extensions(new LinkedHashMap<>(Map.of("x-expect-status", e.status()))));
            } catch (JsonProcessingException ex) {
                throw new IllegalStateException(op.getOperationId() + " example " + e.name() + " is not JSON", ex);
            }
        }
        json.setExamples(out);
    }

    /** The first 2xx answer declared without a body gets the method's view type as its body. */
    private static void successBody(OpenAPI api, Operation op, Class<?> resource, Method m) {
        Returns returns = m.getAnnotation(Returns.class);
        Type type = returns != null ? returns.value() : m.getGenericReturnType();
        if (type == void.class) {
            return;
        }
        for (Map.Entry<String, ApiResponse> answer : op.getResponses().entrySet()) {
            if (answer.getKey().startsWith("2") && answer.getValue().getContent() == null) {
                Schema<?> schema;
                if (type == Response.class || type == String.class) {
                    // a page, a text or a document built as a string: what it is, is what it produces
                    schema = mediaType(resource, m).startsWith("text/") ? new StringSchema() : new ObjectSchema();
                } else {
                    ResolvedSchema resolved = ModelConverters.getInstance(true)
                            .resolveAsResolvedSchema(new AnnotatedType(type).resolveAsRef(true));
                    resolved.referencedSchemas.forEach(api.getComponents()::addSchemas);
                    schema = resolved.schema;
                }
                answer.getValue()
                        .setContent(new Content().addMediaType(mediaType(resource, m), new MediaType().schema(schema)));
                return;
            }
        }
    }

    private static String mediaType(Class<?> resource, Method m) {
        Produces produces = m.getAnnotation(Produces.class);
        if (produces == null) {
            produces = resource.getAnnotation(Produces.class);
        }
        // the media type without its parameters: "text/plain; version=0.0.4" is text/plain
        return produces == null
                ? jakarta.ws.rs.core.MediaType.APPLICATION_JSON
                : produces.value()[0].split(";", 2)[0].trim();
    }
}
