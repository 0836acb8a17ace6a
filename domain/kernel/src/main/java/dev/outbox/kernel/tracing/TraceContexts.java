package dev.outbox.kernel.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;

/**
 * The W3C {@code traceparent} a row and a message carry, to and from OpenTelemetry's context. The
 * outbox stores the context of the transaction that wrote a row; the relay's publish span is its
 * child, and the consumer's processing span the child of the publish: one trace from the HTTP
 * request to the consumer's effect.
 */
public final class TraceContexts {
    /**
     * Whether {@code openTelemetry} records anything: false for the API's no-op one, which every
     * instrumented part then skips outright (no context extraction, no header copy, no proxy).
     * Here, on the API alone, and not on {@link Tracing}, whose SDK a library's class path lacks.
     */
    public static boolean records(io.opentelemetry.api.OpenTelemetry openTelemetry) {
        return openTelemetry != io.opentelemetry.api.OpenTelemetry.noop();
    }

    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    private static final String TRACEPARENT = "traceparent";

    private static final TextMapGetter<String> ONE_VALUE = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of(TRACEPARENT);
        }

        @Override
        public String get(String carrier, String key) {
            return TRACEPARENT.equals(key) ? carrier : null;
        }
    };

    private TraceContexts() {}

    /**
     * The context whose parent is {@code traceparent}, or the root context when it is null or not
     * a valid one (a malformed value starts a new trace, as the W3C spec says).
     */
    public static Context parentFrom(String traceparent) {
        if (traceparent == null) {
            return Context.root();
        }
        return W3C.extract(Context.root(), traceparent, ONE_VALUE);
    }

    /** The {@code traceparent} of a span, or null for an invalid (no-op) one. */
    public static String traceparentOf(SpanContext span) {
        if (!span.isValid()) {
            return null;
        }
        return "00-" + span.getTraceId() + "-" + span.getSpanId() + "-"
                + span.getTraceFlags().asHex();
    }

    /** The {@code traceparent} of the span current on this thread, or null when there is none. */
    public static String current() {
        return traceparentOf(Span.current().getSpanContext());
    }

    /** True when a span of a trace is current: work done now belongs to it. */
    public static boolean inTrace() {
        return Span.current().getSpanContext().isValid();
    }
}
