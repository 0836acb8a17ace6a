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
        if (request.getLength() > limit) {
            throw new ApiException(ProblemExceptionMapper.tooLarge(limit));
        }
        request.setEntityStream(new BoundedEntityStream(request.getEntityStream(), limit));
    }
}
