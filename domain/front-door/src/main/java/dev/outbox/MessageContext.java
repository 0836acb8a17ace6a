package dev.outbox;

/**
 * Where a message came from: the request's correlation id, what caused it, the W3C trace
 * context, and the tenant. Carried into the outbox row and from there onto the AMQP message.
 */
public record MessageContext(String correlationId, String causationId, String traceparent, String tenantId) {
    public static MessageContext none() {
        return new MessageContext(null, null, null, null);
    }

    public MessageContext withCausationId(String causation) {
        return new MessageContext(correlationId, causation, traceparent, tenantId);
    }

    public MessageContext withTenantId(String tenant) {
        return new MessageContext(correlationId, causationId, traceparent, tenant);
    }

    /** True for a syntactically valid W3C {@code traceparent} (version-traceid-parentid-flags). */
    public static boolean isValidTraceparent(String value) {
        return Traceparent.isValid(value);
    }

    /** The 32-hex trace id inside the traceparent, or null. */
    public String traceId() {
        return Traceparent.traceId(traceparent);
    }
}
