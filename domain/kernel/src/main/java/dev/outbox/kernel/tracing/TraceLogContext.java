package dev.outbox.kernel.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.ContextStorageProvider;
import io.opentelemetry.context.Scope;
import org.slf4j.MDC;

/**
 * Puts the trace and span id of the current span into the log context ({@code trace_id},
 * {@code span_id}) whenever a context becomes current, and restores what was there when its scope
 * closes: every line logged inside a span carries its trace id, in text and in JSON, whoever made
 * the span current. Found by the OpenTelemetry context API through {@code ServiceLoader}, so it
 * is in place before the first span of any process, with no start-up call to forget.
 */
public final class TraceLogContext implements ContextStorageProvider {
    public static final String TRACE_ID = "trace_id";
    public static final String SPAN_ID = "span_id";

    @Override
    public ContextStorage get() {
        return new Storage(ContextStorage.defaultStorage());
    }

    private record Storage(ContextStorage delegate) implements ContextStorage {
        @Override
        public Scope attach(Context toAttach) {
            String previousTrace = MDC.get(TRACE_ID);
            String previousSpan = MDC.get(SPAN_ID);
            Scope scope = delegate.attach(toAttach);
            SpanContext span = Span.fromContext(toAttach).getSpanContext();
            if (span.isValid()) {
                MDC.put(TRACE_ID, span.getTraceId());
                MDC.put(SPAN_ID, span.getSpanId());
            } else {
                MDC.remove(TRACE_ID);
                MDC.remove(SPAN_ID);
            }
            return () -> {
                scope.close();
                restore(TRACE_ID, previousTrace);
                restore(SPAN_ID, previousSpan);
            };
        }

        @Override
        public Context current() {
            return delegate.current();
        }

        private static void restore(String key, String value) {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        }
    }
}
