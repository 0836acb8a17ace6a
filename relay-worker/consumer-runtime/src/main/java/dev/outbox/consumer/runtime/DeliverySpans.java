package dev.outbox.consumer.runtime;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.outbox.kernel.tracing.TraceContexts;
import dev.outbox.kernel.tracing.Tracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.Locale;
import java.util.Map;

/**
 * The span of each delivery a consumer processes: a consumer span named {@code process <queue>},
 * the child of the message's {@code traceparent} (the relay's publish), around everything the
 * runner does with it, the handler's transaction and statements as its children. What the
 * delivery came to is on it ({@link #settled}): {@code outbox.consumer.outcome} {@code applied},
 * {@code duplicate} (the dedupe record was there: skipped), {@code held}, {@code stale},
 * {@code requeued} or {@code dead_lettered} (an error, with the reason). Off, it runs the work
 * and nothing else.
 */
final class DeliverySpans {
    static final DeliverySpans OFF = new DeliverySpans(OpenTelemetry.noop(), "", "");

    private final Tracer tracer;
    private final boolean enabled;
    private final String consumer;
    private final String queue;

    DeliverySpans(OpenTelemetry openTelemetry, String consumer, String queue) {
        this.tracer = openTelemetry.getTracer(Tracing.SCOPE);
        this.enabled = TraceContexts.records(openTelemetry);
        this.consumer = consumer;
        this.queue = queue;
    }

    void around(Delivery delivery, Runnable work) {
        if (!enabled) {
            work.run();
            return;
        }
        Envelope envelope = delivery.getEnvelope();
        Map<String, Object> headers = delivery.getProperties().getHeaders();
        // amqp-client hands header strings over as LongString: anything but a string is no parent
        Object traceparent = headers == null ? null : headers.get("traceparent");
        var builder = tracer.spanBuilder("process " + queue)
                .setParent(TraceContexts.parentFrom(traceparent == null ? null : traceparent.toString()))
                .setSpanKind(SpanKind.CONSUMER)
                .setAttribute("messaging.system", "rabbitmq")
                .setAttribute("messaging.operation.type", "process")
                .setAttribute("messaging.operation.name", "process")
                .setAttribute("messaging.destination.name", envelope.getExchange())
                .setAttribute("messaging.rabbitmq.destination.routing_key", envelope.getRoutingKey())
                .setAttribute("messaging.consumer.group.name", consumer)
                .setAttribute("messaging.rabbitmq.message.delivery_tag", envelope.getDeliveryTag())
                .setAttribute("messaging.message.body.size", (long) delivery.getBody().length)
                .setAttribute("outbox.consumer.queue", queue)
                .setAttribute("outbox.redelivered", envelope.isRedeliver());
        if (delivery.getProperties().getMessageId() != null) {
            builder.setAttribute(
                    "messaging.message.id", delivery.getProperties().getMessageId());
        }
        Span span = builder.startSpan();
        try (Scope ignored = span.makeCurrent()) {
            work.run();
        } finally {
            span.end();
        }
    }

    /** The delivery was left unacked (the database away as the consumer stops): the broker redelivers it. */
    static void leftUnacked() {
        Span span = Span.current();
        span.setAttribute("outbox.consumer.outcome", "left_unacked");
        span.addEvent("left unacked while the database was away; the broker delivers it again");
    }

    /** What the delivery being processed came to, on its span. */
    static void settled(DeliveryDecision.Verdict verdict) {
        Span span = Span.current();
        if (!span.isRecording()) {
            return;
        }
        if (verdict instanceof DeliveryDecision.Ack ack) {
            String outcome = ack.counted().name().toLowerCase(Locale.ROOT);
            span.setAttribute("outbox.consumer.outcome", outcome);
            if (ack.counted() == IdempotentProcessor.Result.DUPLICATE) {
                span.addEvent("duplicate: the message id was processed before; skipped");
            }
        } else if (verdict instanceof DeliveryDecision.Requeue requeue) {
            span.setAttribute("outbox.consumer.outcome", "requeued");
            span.addEvent(
                    "requeued",
                    Attributes.builder()
                            .put("outbox.requeue.after_ms", requeue.after().toMillis())
                            .build());
        } else if (verdict instanceof DeliveryDecision.DeadLetter dead) {
            span.setAttribute("outbox.consumer.outcome", "dead_lettered");
            span.setStatus(StatusCode.ERROR, dead.reason());
            span.addEvent(
                    "dead-lettered",
                    Attributes.builder()
                            .put("outbox.dead_letter.reason", dead.reason())
                            .put("outbox.dead_letter.attempts", dead.attempts())
                            .build());
        }
    }
}
