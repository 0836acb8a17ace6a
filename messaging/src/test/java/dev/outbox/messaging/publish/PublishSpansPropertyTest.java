package dev.outbox.messaging.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.lists;

import com.rabbitmq.client.AMQP;
import dev.outbox.Traceparent;
import dev.outbox.testkit.gen.Generators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

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

    /**
     * A {@code traceparent}'s shape with each part right or wrong (hex ids, all zeros and all
     * {@code f} among them one time in ten), any string up to 300 characters, a valid-looking one
     * with an all-zero trace id, any long (its edges one time in ten), or none.
     */
    Gen<Object> storedValues() {
        List<Character> hexDigits =
                "0123456789abcdef".chars().mapToObj(c -> (char) c).toList();
        Gen<String> hex32 = hex(hexDigits, 32);
        Gen<String> hex16 = hex(hexDigits, 16);
        Gen<String> shaped = Generate.pick(List.of("00", "01", "ff", "0g", "0"))
                .zip(
                        hex32,
                        hex16,
                        Generate.pick(List.of("00", "01", "ff", "zz")),
                        (v, t, s, f) -> v + "-" + t + "-" + s + "-" + f);
        Gen<String> anyString = Generators.text(0, 300).mix(Generate.pick(List.of("", "\0", " ")), 10);
        Gen<Long> anyLong = Generators.anyLong();
        return Generate.oneOf(
                shaped.map(o -> (Object) o),
                anyString.map(o -> (Object) o),
                Generate.constant((Object) ("00-" + "0".repeat(32) + "-" + "1".repeat(16) + "-01")),
                anyLong.map(o -> (Object) o),
                Generate.constant((Object) null));
    }

    /** {@code length} hex digits; one time in ten all zeros or all {@code f}. */
    private static Gen<String> hex(List<Character> hexDigits, int length) {
        return lists().of(Generate.pick(hexDigits))
                .ofSize(length)
                .map(cs -> cs.stream().map(String::valueOf).collect(Collectors.joining()))
                .mix(Generate.pick(List.of("0".repeat(length), "f".repeat(length))), 10);
    }

    @Test
    void everyMessageLeavesWithItsOwnSpansValidTraceparent() {
        qt().withExamples(1_000).forAll(storedValues()).checkAssert(stored -> leavesWithItsOwnTraceparent(stored));
    }

    private void leavesWithItsOwnTraceparent(Object stored) {
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
