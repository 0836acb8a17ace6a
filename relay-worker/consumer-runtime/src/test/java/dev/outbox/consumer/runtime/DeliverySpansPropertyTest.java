package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.quicktheories.QuickTheory.qt;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.LongString;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.outbox.Traceparent;
import dev.outbox.testkit.gen.Generators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import org.quicktheories.generators.SourceDSL;

/**
 * A delivery's {@code traceparent} header is whatever a publisher sent: a string amqp-client hands
 * over as a {@link LongString}, raw bytes, a number, nothing, over its shape and past it. Whatever
 * it is, the work runs once inside one ended span, the child of the header only when it is valid
 * trace context (none recorded when that context says it is not sampled), and the span is never an
 * error for the header alone. The headers are generated with a new seed each run: a failure prints
 * its shrunk header and the seed, which {@code -DQT_SEED=<seed>} replays.
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

    /**
     * Strings of {@code length} chars of {@code chars}; one in ten is the first char repeated (all
     * zeros for hex: the trace id and parent id W3C forbids).
     */
    private static Gen<String> stringsOf(String chars, int length) {
        Gen<Character> each =
                Generate.pick(chars.chars().mapToObj(c -> (char) c).toList());
        return SourceDSL.lists()
                .of(each)
                .ofSize(length)
                .map(DeliverySpansPropertyTest::join)
                .mix(Generate.constant(String.valueOf(chars.charAt(0)).repeat(length)), 10);
    }

    private static String join(List<Character> chars) {
        StringBuilder sb = new StringBuilder(chars.size());
        chars.forEach(sb::append);
        return sb.toString();
    }

    static Gen<Object> headerValues() {
        Gen<String> hex32 = stringsOf("0123456789abcdef", 32);
        Gen<String> hex16 = stringsOf("0123456789abcdef", 16);
        Gen<String> versionsAndFlags = Generate.pick(List.of("00", "01", "ff"));
        Gen<String> shaped =
                versionsAndFlags.zip(hex32, hex16, versionsAndFlags, (v, t, s, f) -> v + "-" + t + "-" + s + "-" + f);
        Gen<Integer> byteCounts = SourceDSL.integers().between(0, 80).mix(Generate.pick(List.of(0, 80)), 10);
        Gen<Long> longs =
                SourceDSL.longs().all().mix(Generate.pick(List.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE)), 10);
        return Generate.oneOf(
                        shaped.map(s -> (Object) LongStringHelper.asLongString(s)),
                        Generators.text(0, 400).map(s -> (Object) LongStringHelper.asLongString(s)),
                        Generate.byteArrays(byteCounts, Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0))
                                .map(b -> (Object) b),
                        longs.map(l -> (Object) l),
                        Generate.constant((Object) null))
                .describedAs(DeliverySpansPropertyTest::describe);
    }

    /** The header as a failure shows it: its AMQP type, and a string with its awkward chars escaped. */
    private static String describe(Object header) {
        if (header == null) {
            return "no traceparent header";
        }
        if (header instanceof LongString text) {
            StringBuilder out = new StringBuilder("string '");
            text.toString()
                    .chars()
                    .forEach(c ->
                            out.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", c) : String.valueOf((char) c)));
            return out.append('\'').toString();
        }
        if (header instanceof byte[] bytes) {
            return "bytes " + Arrays.toString(bytes);
        }
        return header.getClass().getSimpleName() + " " + header;
    }

    @Test
    void theWorkRunsOnceInOneEndedSpanWhateverTheHeader() {
        qt().withExamples(1_000).forAll(headerValues()).checkAssert(this::runsOnceInOneEndedSpan);
    }

    private void runsOnceInOneEndedSpan(Object header) {
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
