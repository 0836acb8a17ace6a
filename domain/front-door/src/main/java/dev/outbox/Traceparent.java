package dev.outbox;

import java.util.regex.Pattern;

/**
 * The W3C trace context's {@code traceparent} value: version-traceid-parentid-flags, lower-case
 * hex, with a trace id that is not all zeros. The write path keeps it on the outbox row only when
 * valid, and the relay puts it on the AMQP message under the same rule.
 */
public final class Traceparent {
    private static final Pattern SHAPE = Pattern.compile("[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}");
    private static final String NO_TRACE = "0".repeat(32);
    private static final String NO_PARENT = "0".repeat(16);

    private Traceparent() {}

    /**
     * True for a valid {@code traceparent}, as the W3C spec and OpenTelemetry's propagator read it:
     * the shape, and neither the forbidden version {@code ff} nor an all-zero trace or parent id (a
     * generated test found values of that kind kept here that the propagator then ignored).
     */
    public static boolean isValid(String value) {
        return value != null
                && SHAPE.matcher(value).matches()
                && !value.startsWith("ff")
                && !value.substring(3, 35).equals(NO_TRACE)
                && !value.substring(36, 52).equals(NO_PARENT);
    }

    /** The 32-hex trace id inside a valid {@code traceparent}, else null. */
    public static String traceId(String value) {
        return isValid(value) ? value.substring(3, 35) : null;
    }
}
