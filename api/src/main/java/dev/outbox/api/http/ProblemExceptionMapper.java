package dev.outbox.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.outbox.domain.BusinessRuleException;
import dev.outbox.domain.IllegalTransitionException;
import dev.outbox.domain.InvalidInputException;
import dev.outbox.domain.Violation;
import dev.outbox.persistence.ConcurrencyConflictException;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.StatementRefusedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place exceptions become HTTP responses, always {@code application/problem+json}.
 * Clients see a stable code and a sentence written here, never a stack trace, SQL or parser
 * text; a 5xx carries an {@code errorId} that is logged with the full exception.
 */
@Provider
public final class ProblemExceptionMapper implements ExceptionMapper<Throwable> {
    private static final Logger LOG = LoggerFactory.getLogger(ProblemExceptionMapper.class);
    private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    @Context
    private jakarta.inject.Provider<ContainerRequestContext> request;

    @Override
    public Response toResponse(Throwable failure) {
        Problem problem = problemFor(failure);
        String correlation = correlationId();
        problem = problem.withCorrelationId(correlation);
        if (problem.status() >= 500) {
            String errorId = UUID.randomUUID().toString();
            problem = problem.withErrorId(errorId);
            LOG.error("errorId={} {} {}", errorId, problem.code(), problem.detail(), failure);
        } else if (LOG.isDebugEnabled()) {
            // the client's mistake, not ours: no stack trace, and only when asked for
            LOG.debug("{} {}: {}", problem.status(), problem.code(), failure.toString());
        }
        Response.ResponseBuilder b =
                Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem);
        if (correlation != null) {
            b.header(RequestMetadataFilter.CORRELATION_ID, correlation);
        }
        if (failure instanceof ApiException api && api.wwwAuthenticate() != null) {
            b.header("WWW-Authenticate", api.wwwAuthenticate());
        }
        if (failure instanceof WebApplicationException wae && wae.getResponse().getHeaderString("Allow") != null) {
            b.header("Allow", wae.getResponse().getHeaderString("Allow"));
        }
        if (closesTheConnection(problem)) {
            // the rest of the body is not worth reading: close once the answer is out
            b.header("Connection", "close");
        }
        return b.build();
    }

    private static boolean closesTheConnection(Problem problem) {
        return problem.status() == 413 || "body_unreadable".equals(problem.code());
    }

    static Problem problemFor(Throwable failure) {
        // first: the body's own stream failed, whoever was reading it (a filter, Jackson, Jersey)
        RequestBodyTooLargeException tooLarge = find(failure, RequestBodyTooLargeException.class);
        if (tooLarge != null) {
            return tooLarge(tooLarge.limit());
        }
        if (find(failure, RequestBodyUnreadableException.class) != null) {
            return Problem.of(
                    400,
                    "body_unreadable",
                    "Request body unreadable",
                    "the request body ended before its Content-Length, or its chunked encoding is broken");
        }
        if (find(failure, org.glassfish.jersey.message.internal.HeaderValueException.class) != null) {
            // a request header Jersey could not parse where a resource or filter read it
            return Problem.of(
                    400, "header_invalid", "Invalid request header", "a request header has a value that is not valid");
        }
        if (failure instanceof InvalidInputException e) {
            return Problem.of(400, e.code(), "Invalid request", e.getMessage()).withErrors(e.violations());
        }
        if (failure instanceof IllegalTransitionException e) {
            return Problem.of(409, e.code(), "Not allowed in the order's current state", e.getMessage());
        }
        if (failure instanceof BusinessRuleException e) {
            return Problem.of(422, e.code(), "Request contradicts the order", e.getMessage());
        }
        if (failure instanceof ApiException e) {
            return e.problem();
        }
        JsonProcessingException json = find(failure, JsonProcessingException.class);
        if (json != null) {
            return jsonProblem(json);
        }
        if (failure instanceof ConcurrencyConflictException) {
            return Problem.of(
                    409,
                    "concurrent_modification",
                    "Changed concurrently",
                    "the order was changed by another request at the same time; read it and try again");
        }
        if (failure instanceof StatementRefusedException) {
            // transient like an outage, but the database answered: say it is busy, not gone
            return Problem.of(
                    503,
                    "service_unavailable",
                    "Temporarily unavailable",
                    "the database is too busy to complete the request right now; retry later (with the same"
                            + " Idempotency-Key)");
        }
        if (failure instanceof DataAccessException e && e.isTransient()) {
            return Problem.of(
                    503,
                    "service_unavailable",
                    "Temporarily unavailable",
                    "the database is not reachable right now; retry later (with the same Idempotency-Key)");
        }
        if (failure instanceof WebApplicationException wae) {
            int status = wae.getResponse().getStatus();
            Response.Status.Family family = Response.Status.Family.familyOf(status);
            if (family == Response.Status.Family.CLIENT_ERROR) {
                String reason = wae.getResponse().getStatusInfo().getReasonPhrase();
                return Problem.of(status, reason.toLowerCase().replace(' ', '_'), reason, describeClientError(status));
            }
        }
        return Problem.of(
                500,
                "internal_error",
                "Internal error",
                "the request failed on our side; quote the errorId when reporting it");
    }

    /** 413, for a body over the limit: whether its length was declared or counted while reading. */
    public static Problem tooLarge(long limit) {
        return Problem.of(
                413,
                "payload_too_large",
                "Request body too large",
                "the request body is larger than " + limit + " bytes, the limit of this API (OUTBOX_HTTP_MAX_BODY)");
    }

    private static String describeClientError(int status) {
        return switch (status) {
            case 404 -> "no resource at this path";
            case 405 -> "this method is not allowed on this resource";
            case 406 -> "this resource cannot answer with any media type the Accept header names";
            case 415 -> "send application/json";
            default -> "the request cannot be processed";
        };
    }

    private static Problem jsonProblem(JsonProcessingException e) {
        if (e instanceof InvalidValueException v) {
            String field = path(v);
            return Problem.of(400, "validation_failed", "Invalid request", field + " " + v.reason())
                    .withErrors(List.of(new Violation(field, v.reason())));
        }
        if (e instanceof UnrecognizedPropertyException u) {
            // the name is the client's own text: echo it only when it looks like a field name
            String name = u.getPropertyName() != null
                            && FIELD_NAME.matcher(u.getPropertyName()).matches()
                    ? u.getPropertyName()
                    : null;
            return Problem.of(
                            400,
                            "validation_failed",
                            "Invalid request",
                            name == null ? "a field is not known" : "unknown field " + name)
                    .withErrors(List.of(new Violation(name == null ? "body" : path(u), "is not a known field")));
        }
        if (e instanceof InvalidFormatException || e instanceof MismatchedInputException) {
            JsonMappingException m = (JsonMappingException) e;
            String field = path(m);
            if (field.equals("body")) {
                // the document as a whole: an array or a string where an object belongs, or a second
                // document after the first
                return Problem.of(
                                400,
                                "validation_failed",
                                "Invalid request",
                                "the body is not one JSON object of the documented shape")
                        .withErrors(List.of(new Violation("body", "is not one JSON object of the documented shape")));
            }
            return Problem.of(400, "validation_failed", "Invalid request", field + " has the wrong type")
                    .withErrors(List.of(new Violation(
                            field, "has the wrong type (money is a decimal string," + " quantity an integer)")));
        }
        return Problem.of(400, "malformed_json", "Malformed JSON", "the request body is not valid JSON");
    }

    private static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                sb.append(sb.length() == 0 ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.length() == 0 ? "body" : sb.toString();
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return null;
    }

    private String correlationId() {
        try {
            ContainerRequestContext r = request == null ? null : request.get();
            Object m = r == null ? null : r.getProperty(RequestMetadata.PROPERTY);
            return m instanceof RequestMetadata metadata ? metadata.correlationId() : null;
        } catch (IllegalStateException e) {
            return null; // outside a request scope
        }
    }
}
