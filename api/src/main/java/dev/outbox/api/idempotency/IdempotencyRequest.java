package dev.outbox.api.idempotency;

import jakarta.ws.rs.container.ContainerRequestContext;

/**
 * The {@code Idempotency-Key} of a request, the scope it lives in (the tenant, so tenants cannot
 * collide), and a fingerprint of the request (method, path, canonical JSON body).
 */
public record IdempotencyRequest(String scope, String key, String fingerprint) {
    static final String PROPERTY = IdempotencyRequest.class.getName();

    public static final IdempotencyRequest NONE = new IdempotencyRequest(null, null, null);

    public boolean present() {
        return key != null;
    }

    /** What {@link IdempotencyFilter} found on the request; {@link #NONE} without the header. */
    public static IdempotencyRequest of(ContainerRequestContext request) {
        Object r = request.getProperty(PROPERTY);
        return r instanceof IdempotencyRequest ir ? ir : NONE;
    }
}
