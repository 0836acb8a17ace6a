package dev.outbox.api.http;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.lang.annotation.Annotation;

/**
 * The last word on errors Jersey answers by itself, without an exception mapper (an inbound
 * header it cannot parse, say): an error without a body gets the problem its status stands for,
 * so every error a client sees is {@code application/problem+json}.
 */
public final class ProblemResponseFilter implements ContainerResponseFilter {
    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        int status = response.getStatus();
        if (status < 400 || response.hasEntity()) {
            return;
        }
        Response.StatusType info = response.getStatusInfo();
        String reason = info.getReasonPhrase() == null ? "Error" : info.getReasonPhrase();
        Problem problem = Problem.of(
                status,
                reason.toLowerCase(java.util.Locale.ROOT).replace(' ', '_'),
                reason,
                status >= 500 ? "the request failed on our side" : "the request cannot be processed as sent");
        Object metadata = request.getProperty(RequestMetadata.PROPERTY);
        if (metadata instanceof RequestMetadata m) {
            problem = problem.withCorrelationId(m.correlationId());
        }
        response.setEntity(problem, new Annotation[0], MediaType.valueOf(Problem.MEDIA_TYPE));
    }
}
