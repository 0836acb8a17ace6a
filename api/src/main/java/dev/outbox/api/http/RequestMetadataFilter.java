package dev.outbox.api.http;

import dev.outbox.MessageContext;
import dev.outbox.domain.InvalidInputException;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.MDC;

/**
 * Reads {@code X-Correlation-Id} (generated when absent), W3C {@code traceparent} (ignored when
 * malformed, as the W3C spec says), {@code X-Tenant-Id} and {@code Idempotency-Key}; puts the
 * correlation id in the log context and echoes it on every response, errors included. It runs
 * first, before authentication, so a 401 carries a correlation id too.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
public final class RequestMetadataFilter implements ContainerRequestFilter, ContainerResponseFilter {
    public static final String CORRELATION_ID = "X-Correlation-Id";
    public static final String TRACEPARENT = "traceparent";
    public static final String TENANT_ID = "X-Tenant-Id";
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    /** What an {@code X-Correlation-Id} may be; {@code /openapi.json} documents the same pattern. */
    public static final String CORRELATION_ID_PATTERN = "[A-Za-z0-9._:/@+=-]{1,128}";
    /** What an {@code X-Tenant-Id} may be. */
    public static final String TENANT_ID_PATTERN = "[A-Za-z0-9._-]{1,64}";

    private static final Pattern TOKEN = Pattern.compile(CORRELATION_ID_PATTERN);
    private static final Pattern TENANT = Pattern.compile(TENANT_ID_PATTERN);
    /** The longest {@code Idempotency-Key}: the one number the code, /openapi.json and README share. */
    public static final int MAX_IDEMPOTENCY_KEY_LENGTH = 255;

    private static final Pattern KEY = Pattern.compile("[\\x21-\\x7E]{1," + MAX_IDEMPOTENCY_KEY_LENGTH + "}");

    @Override
    public void filter(ContainerRequestContext request) {
        String correlation = request.getHeaderString(CORRELATION_ID);
        if (correlation == null || correlation.isBlank()) {
            correlation = UUID.randomUUID().toString();
        } else if (!TOKEN.matcher(correlation).matches()) {
            // echo a fresh id on the error so the client still gets something to quote
            request.setProperty(
                    RequestMetadata.PROPERTY,
                    new RequestMetadata(UUID.randomUUID().toString(), null, null, null));
            throw InvalidInputException.of(CORRELATION_ID, "must be 1-128 characters of letters, digits and ._:/@+=-");
        }
        String traceparent = request.getHeaderString(TRACEPARENT);
        if (!MessageContext.isValidTraceparent(traceparent)) {
            traceparent = null;
        }
        String tenant = request.getHeaderString(TENANT_ID);
        String key = request.getHeaderString(IDEMPOTENCY_KEY);
        RequestMetadata metadata = new RequestMetadata(correlation, traceparent, tenant, key);
        request.setProperty(RequestMetadata.PROPERTY, metadata);
        MDC.put("correlation_id", correlation);
        if (tenant != null && !TENANT.matcher(tenant).matches()) {
            throw InvalidInputException.of(TENANT_ID, "must be 1-64 characters of letters, digits and ._-");
        }
        if (key != null && !KEY.matcher(key).matches()) {
            throw InvalidInputException.of(
                    IDEMPOTENCY_KEY, "must be 1-" + MAX_IDEMPOTENCY_KEY_LENGTH + " visible ASCII characters");
        }
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Object m = request.getProperty(RequestMetadata.PROPERTY);
        if (m instanceof RequestMetadata metadata) {
            response.getHeaders().putSingle(CORRELATION_ID, metadata.correlationId());
        }
        MDC.remove("correlation_id");
    }
}
