package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.LongString;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.outbox.Traceparent;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * A delivery's {@code traceparent} header is whatever a publisher sent: a string amqp-client hands
 * over as a {@link LongString}, raw bytes, a number, nothing, over its shape and past it. Whatever
 * it is, the work runs once inside one ended span, the child of the header only when it is valid
 * trace context (none recorded when that context says it is not sampled), and the span is never an
 * error for the header alone.
 */
class DeliverySpansPropertyTest {
    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final DeliverySpans spans = new DeliverySpans(
            OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder()
                            .addSpanProcessor(SimpleSpanProcessor.create(exported))
                            .build())
                    .build(),
            "ledger",
            "ledger.order-events");

    @Provide
    Arbitrary<Object> headerValues() {
        Arbitrary<String> hex32 =
                Arbitraries.strings().withChars("0123456789abcdef").ofLength(32);
        Arbitrary<String> hex16 =
                Arbitraries.strings().withChars("0123456789abcdef").ofLength(16);
        Arbitrary<String> shaped = net.jqwik.api.Combinators.combine(
                        Arbitraries.of("00", "01", "ff"), hex32, hex16, Arbitraries.of("00", "01", "ff"))
                .as((v, t, s, f) -> v + "-" + t + "-" + s + "-" + f);
        return Arbitraries.oneOf(
                shaped.map(s -> (Object) LongStringHelper.asLongString(s)),
                Arbitraries.strings().ofMaxLength(400).map(s -> (Object) LongStringHelper.asLongString(s)),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(80).map(b -> (Object) b),
                Arbitraries.longs().map(l -> (Object) l),
                Arbitraries.just((Object) null));
    }

    @Property(tries = 1_000)
    void theWorkRunsOnceInOneEndedSpanWhateverTheHeader(@ForAll("headerValues") Object header) {
        exported.reset();
        Map<String, Object> headers = new HashMap<>();
        if (header != null) {
            headers.put("traceparent", header);
        }
        Delivery delivery = new Delivery(
                new Envelope(7, false, "orders.events", "payment.captured"),
                new AMQP.BasicProperties.Builder()
                        .messageId("m")
                        .headers(headers)
                        .build(),
                new byte[] {'{', '}'});
        AtomicInteger ran = new AtomicInteger();
        spans.around(delivery, ran::incrementAndGet);

        assertEquals(1, ran.get());
        List<SpanData> ended = exported.getFinishedSpanItems();
        String text = header instanceof LongString l ? l.toString() : null;
        if (Traceparent.isValid(text) && (Integer.parseInt(text.substring(53), 16) & 1) == 0) {
            // the caller chose not to sample this trace: its delivery records no span either
            assertEquals(List.of(), ended);
            return;
        }
        assertEquals(1, ended.size());
        SpanData span = ended.get(0);
        assertNotEquals(
                io.opentelemetry.api.trace.StatusCode.ERROR, span.getStatus().getStatusCode());
        if (Traceparent.isValid(text)) {
            assertEquals(Traceparent.traceId(text), span.getTraceId(), "the child of a valid header");
            assertEquals(text.substring(36, 52), span.getParentSpanId());
        } else {
            assertEquals("0000000000000000", span.getParentSpanId(), "a root where the header is no trace context");
        }
    }
}
