package dev.outbox.api.http;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;

/**
 * The request body limit ({@code OUTBOX_HTTP_MAX_BODY}), in one place for every resource and
 * filter: a declared {@code Content-Length} over the limit is answered 413 before a byte of the
 * body is read; any other body (chunked, or shorter than declared) is read through a
 * {@link BoundedEntityStream}, which stops at the limit.
 */
@PreMatching
@Priority(Priorities.ENTITY_CODER)
public final class BodyLimitFilter implements ContainerRequestFilter {
    private final long limit;

    public BodyLimitFilter(long limit) {
        this.limit = limit;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if (declaredLength(request) > limit) {
            throw new ApiException(ProblemExceptionMapper.tooLarge(limit));
        }
        request.setEntityStream(new BoundedEntityStream(request.getEntityStream(), limit));
    }

    /**
     * The declared length as a long: {@code getLength()} parses it as an int, and Jersey throws
     * for anything from 2^31 up (Grizzly takes any long), which would surface as a 500. Framing
     * Grizzly refuses (two lengths, a non-number) never gets here.
     */
    private static long declaredLength(ContainerRequestContext request) {
        String header = request.getHeaderString("Content-Length");
        if (header == null) {
            return -1;
        }
        try {
            return Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
