package dev.outbox.messaging.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import dev.outbox.Traceparent;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.HashMap;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The stored {@code traceparent} a publish span continues is whatever a row's {@code headers}
 * held (any SQL client writes them): generated values over its shape and past it. Whatever it is,
 * the message goes out with a valid {@code traceparent} of its own span, continuing the stored
 * trace when the value was valid and starting one when not; off, the message is the one mapped.
 */
class PublishSpansPropertyTest {
    private final InMemorySpanExporter exported = InMemorySpanExporter.create();
    private final PublishSpans spans = new PublishSpans(OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exported))
                    .build())
            .build());

    @Provide
    Arbitrary<Object> storedValues() {
        Arbitrary<String> hex32 =
                Arbitraries.strings().withChars("0123456789abcdef").ofLength(32);
        Arbitrary<String> hex16 =
                Arbitraries.strings().withChars("0123456789abcdef").ofLength(16);
        Arbitrary<String> shaped = net.jqwik.api.Combinators.combine(
                        Arbitraries.of("00", "01", "ff", "0g", "0"),
                        hex32,
                        hex16,
                        Arbitraries.of("00", "01", "ff", "zz"))
                .as((v, t, s, f) -> v + "-" + t + "-" + s + "-" + f);
        return Arbitraries.oneOf(
                shaped.map(o -> (Object) o),
                Arbitraries.strings().ofMaxLength(300).map(o -> (Object) o),
                Arbitraries.just((Object) ("00-" + "0".repeat(32) + "-" + "1".repeat(16) + "-01")),
                Arbitraries.longs().map(o -> (Object) o),
                Arbitraries.just((Object) null));
    }

    @Property(tries = 1_000)
    void everyMessageLeavesWithItsOwnSpansValidTraceparent(@ForAll("storedValues") Object stored) {
        Map<String, Object> headers = new HashMap<>(Map.of("message_type", "order.created"));
        if (stored != null) {
            headers.put("traceparent", stored);
        }
        OutboundMessage mapped = new OutboundMessage(
                "orders.events",
                "order.created",
                new AMQP.BasicProperties.Builder()
                        .messageId("m-1")
                        .headers(headers)
                        .build(),
                new byte[] {'{', '}'});

        PublishSpans.Started started = spans.start(mapped);
        String sent = (String) started.message().properties().getHeaders().get("traceparent");
        assertTrue(Traceparent.isValid(sent), "sent " + sent + " for stored " + stored);
        assertEquals(started.span().getSpanContext().getSpanId(), sent.substring(36, 52));
        if (stored instanceof String s && Traceparent.isValid(s)) {
            assertEquals(Traceparent.traceId(s), Traceparent.traceId(sent), "the stored trace goes on");
        }
        assertEquals(
                "order.created", started.message().properties().getHeaders().get("message_type"));
        started.span().end();

        assertSame(mapped, PublishSpans.OFF.start(mapped).message(), "off, the message is the one mapped");
    }
}
