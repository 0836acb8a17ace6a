package dev.outbox.api.http;

import dev.outbox.MessageContext;
import jakarta.ws.rs.container.ContainerRequestContext;

/** What a request says about where it comes from, checked by {@link RequestMetadataFilter}. */
public record RequestMetadata(String correlationId, String traceparent, String tenantId, String idempotencyKey) {
    static final String PROPERTY = RequestMetadata.class.getName();

    public static RequestMetadata of(ContainerRequestContext request) {
        Object m = request.getProperty(PROPERTY);
        if (!(m instanceof RequestMetadata metadata)) {
            throw new IllegalStateException("RequestMetadataFilter did not run");
        }
        return metadata;
    }

    /** The context carried into every outbox row this request writes. */
    public MessageContext messageContext() {
        return new MessageContext(correlationId, null, traceparent, tenantId);
    }
}
