package dev.outbox.messaging.publish;

import com.rabbitmq.client.AMQP;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.tracing.TraceContexts;
import dev.outbox.kernel.tracing.Tracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The span of each message the relay publishes, from {@code basic.publish} to the broker's
 * answer: a producer span named {@code publish <exchange>}, the child of the context stored on
 * the row (the transaction that wrote it), with the messaging conventions' attributes (system,
 * destination, routing key, message id) and the wait for the confirm
 * ({@code outbox.confirm.wait_ms}). The message goes out with the span's own {@code traceparent},
 * so the consumer's processing is its child. A nack, a return, a timeout or a message the client
 * cannot encode ends it as an error with the row's error code as {@code error.type}.
 *
 * <p>Off ({@link #OFF}, or a no-op {@link OpenTelemetry}), nothing is copied or started: the
 * message goes out exactly as mapped, its stored {@code traceparent} untouched.
 */
public final class PublishSpans {
    public static final PublishSpans OFF = new PublishSpans(OpenTelemetry.noop());

    private final Tracer tracer;
    private final boolean enabled;

    public PublishSpans(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer(Tracing.SCOPE);
        this.enabled = TraceContexts.records(openTelemetry);
    }

    /** A message sent, and the span of its publish. */
    record Traced<T>(T tag, Span span) {}

    /** A message ready to send, carrying its publish span's context. */
    record Started(OutboundMessage message, Span span) {}

    Started start(OutboundMessage message) {
        if (!enabled) {
            return new Started(message, Span.getInvalid());
        }
        AMQP.BasicProperties properties = message.properties();
        Map<String, Object> headers = properties.getHeaders() == null ? Map.of() : properties.getHeaders();
        Object stored = headers.get("traceparent");
        var builder = tracer.spanBuilder("publish " + message.exchange())
                .setParent(TraceContexts.parentFrom(stored instanceof String s ? s : null))
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute("messaging.system", "rabbitmq")
                .setAttribute("messaging.operation.type", "send")
                .setAttribute("messaging.operation.name", "publish")
                .setAttribute("messaging.destination.name", message.exchange())
                .setAttribute("messaging.rabbitmq.destination.routing_key", message.routingKey())
                .setAttribute("messaging.message.id", message.messageId())
                .setAttribute("messaging.message.body.size", (long) message.body().length);
        if (properties.getCorrelationId() != null) {
            builder.setAttribute("messaging.message.conversation_id", properties.getCorrelationId());
        }
        if (headers.get("aggregate_id") instanceof String aggregate) {
            builder.setAttribute("outbox.aggregate.id", aggregate);
        }
        Span span = builder.startSpan();
        Map<String, Object> traced = new LinkedHashMap<>(headers);
        traced.put("traceparent", TraceContexts.traceparentOf(span.getSpanContext()));
        return new Started(
                new OutboundMessage(
                        message.exchange(),
                        message.routingKey(),
                        properties.builder().headers(traced).build(),
                        message.body()),
                span);
    }

    /** The listener a publisher reports to: it ends each message's span, then tells {@code listener}. */
    static <T> PublishListener<Traced<T>> ending(PublishListener<T> listener) {
        return new PublishListener<>() {
            @Override
            public void confirmed(Traced<T> t, long confirmNanos) {
                t.span().setAttribute("outbox.confirm.wait_ms", confirmNanos / 1_000_000.0);
                t.span().addEvent("basic.ack");
                t.span().end();
                listener.confirmed(t.tag(), confirmNanos);
            }

            @Override
            public void failed(Traced<T> t, ErrorCode code, String detail) {
                failedSpan(t.span(), code, detail);
                listener.failed(t.tag(), code, detail);
            }

            @Override
            public void suspect(Traced<T> t, ErrorCode code, String detail) {
                t.span().addEvent("suspect: published again alone to find the guilty message");
                failedSpan(t.span(), code, detail);
                listener.suspect(t.tag(), code, detail);
            }

            @Override
            public void unknown(Traced<T> t, String detail) {
                t.span().addEvent("outcome unknown: published again");
                t.span().setStatus(StatusCode.ERROR, detail);
                t.span().end();
                listener.unknown(t.tag(), detail);
            }
        };
    }

    /** Ends the span of a message its publisher stopped without an answer for: it may have arrived. */
    static void abandoned(Span span) {
        span.addEvent("handed back unsettled: outcome unknown, published again by the next claim");
        span.end();
    }

    /** Ends the span of a message that was not sent after all and goes back to its caller. */
    static void notSent(Span span, String why) {
        span.addEvent("not sent: " + why);
        span.end();
    }

    /** A message published alone ({@link ConfirmPublisher#publishAlone}) in a span of its own. */
    ConfirmPublisher.SoloOutcome solo(
            OutboundMessage message, java.util.function.Function<OutboundMessage, ConfirmPublisher.SoloOutcome> send) {
        Started started = start(message);
        started.span().setAttribute("outbox.published_alone", true);
        long sent = System.nanoTime();
        ConfirmPublisher.SoloOutcome outcome = send.apply(started.message());
        if (outcome.confirmed()) {
            started.span().setAttribute("outbox.confirm.wait_ms", (System.nanoTime() - sent) / 1_000_000.0);
            started.span().end();
        } else {
            failedSpan(started.span(), outcome.failure(), outcome.detail());
        }
        return outcome;
    }

    private static void failedSpan(Span span, ErrorCode code, String detail) {
        span.setStatus(StatusCode.ERROR, detail);
        span.setAttribute("error.type", code.name());
        span.end();
    }
}
