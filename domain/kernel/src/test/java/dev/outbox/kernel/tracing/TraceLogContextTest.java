package dev.outbox.kernel.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The trace and span id are in the log context exactly while a span is current. */
class TraceLogContextTest {
    // a provider with no processor at all hands out invalid spans: give it one that drops them
    private final Tracer tracer = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(SpanExporter.composite()))
            .build()
            .get("test");

    @Test
    void aCurrentSpanPutsItsIdsInTheLogContextAndClosingRestoresTheOuterOnes() {
        Span outer = tracer.spanBuilder("outer").startSpan();
        try (Scope a = outer.makeCurrent()) {
            assertEquals(outer.getSpanContext().getTraceId(), MDC.get(TraceLogContext.TRACE_ID));
            assertEquals(outer.getSpanContext().getSpanId(), MDC.get(TraceLogContext.SPAN_ID));
            Span inner = tracer.spanBuilder("inner").startSpan();
            try (Scope b = inner.makeCurrent()) {
                assertEquals(inner.getSpanContext().getSpanId(), MDC.get(TraceLogContext.SPAN_ID));
                assertEquals(outer.getSpanContext().getTraceId(), MDC.get(TraceLogContext.TRACE_ID));
                try (Scope none = Span.getInvalid().makeCurrent()) {
                    assertNull(MDC.get(TraceLogContext.TRACE_ID), "no span, no trace id");
                }
                assertEquals(inner.getSpanContext().getSpanId(), MDC.get(TraceLogContext.SPAN_ID));
            }
            assertEquals(outer.getSpanContext().getSpanId(), MDC.get(TraceLogContext.SPAN_ID));
        }
        assertNull(MDC.get(TraceLogContext.TRACE_ID));
        assertNull(MDC.get(TraceLogContext.SPAN_ID));
    }

    @Test
    void aTraceparentRoundTripsThroughTheContext() {
        String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        Span child = tracer.spanBuilder("child")
                .setParent(TraceContexts.parentFrom(traceparent))
                .startSpan();
        assertEquals("0af7651916cd43dd8448eb211c80319c", child.getSpanContext().getTraceId());
        try (Scope s = child.makeCurrent()) {
            assertEquals(
                    "00-0af7651916cd43dd8448eb211c80319c-"
                            + child.getSpanContext().getSpanId() + "-01",
                    TraceContexts.current());
        }
        assertNull(TraceContexts.current());
        assertEquals(
                Span.getInvalid().getSpanContext(),
                Span.fromContext(TraceContexts.parentFrom("00-not-a-trace")).getSpanContext(),
                "a malformed traceparent starts a new trace");
    }
}
