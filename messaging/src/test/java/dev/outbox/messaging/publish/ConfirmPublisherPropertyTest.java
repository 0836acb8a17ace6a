package dev.outbox.messaging.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import com.rabbitmq.client.AMQP;
import dev.outbox.kernel.outbox.ErrorCode;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * The publisher's one promise, over generated histories: a message is reported confirmed only if
 * the broker acked <em>that</em> message. Histories interleave good messages, messages the client
 * cannot encode (each limit of the protocol), surprises thrown from inside {@code basicPublish}
 * after the client took its sequence number, and the broker's acks, nacks and returns in any
 * order. {@link FakeChannel} numbers the broker's confirms by what it really received, as
 * RabbitMQ does, so a publisher that keyed a refused message by its sequence number would see
 * later confirms filed one message late, and this property would name the history.
 */
class ConfirmPublisherPropertyTest {

    sealed interface Step permits Good, Poison, Surprise, Ack, Nack, Return {}

    record Good() implements Step {}

    record Poison(String kind) implements Step {}

    record Surprise(boolean encodingRefusal) implements Step {}

    /** Ack the broker tag at {@code fraction} of what it has received but not yet settled. */
    record Ack(double fraction, boolean multiple) implements Step {}

    record Nack(double fraction) implements Step {}

    record Return(double fraction) implements Step {}

    Gen<List<Step>> histories() {
        // a fraction of hundredths, 0.00 to 1.00; one in ten an edge: 0, 0.01, 1
        Gen<Double> fraction = integers()
                .between(0, 100)
                .mix(Generate.pick(List.of(0, 1, 100)), 10)
                .map(hundredths -> hundredths / 100.0);
        Gen<Step> good = Generate.constant(new Good());
        Gen<Step> poison = Generate.pick(List.of(
                        "correlationId", "type", "routingKey", "headerName", "bigInteger", "decimal", "frame", "body"))
                .map(kind -> new Poison(kind));
        Gen<Step> surprise = Generate.booleans().map(encodingRefusal -> new Surprise(encodingRefusal));
        Gen<Step> ack = fraction.zip(Generate.booleans(), (f, multiple) -> new Ack(f, multiple));
        Gen<Step> nack = fraction.map(f -> new Nack(f));
        Gen<Step> ret = fraction.map(f -> new Return(f));
        Gen<Step> step = Generate.frequency(
                Pair.of(6, good),
                Pair.of(2, poison),
                Pair.of(1, surprise),
                Pair.of(4, ack),
                Pair.of(1, nack),
                Pair.of(1, ret));
        return lists().of(step).ofSizeBetween(1, 60);
    }

    @Test
    void aConfirmIsOnlyEverReportedForTheMessageTheBrokerAcked() {
        qt().withExamples(400).forAll(histories(), Generate.booleans()).checkAssert((history, traced) -> {
            try {
                onlyTheAckedMessageIsReportedConfirmed(history, traced);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void onlyTheAckedMessageIsReportedConfirmed(List<Step> history, boolean traced) throws Exception {
        InMemorySpanExporter exported = InMemorySpanExporter.create();
        SdkTracerProvider tracing = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exported))
                .build();
        PublishSpans spans = traced
                ? new PublishSpans(
                        OpenTelemetrySdk.builder().setTracerProvider(tracing).build())
                : PublishSpans.OFF;
        FakeChannel broker = new FakeChannel();
        broker.frameMax(4_096);
        Map<String, List<String>> outcomes = new ConcurrentHashMap<>();
        PublishListener<String> listener = new PublishListener<>() {
            @Override
            public void confirmed(String tag, long confirmNanos) {
                outcomes.computeIfAbsent(tag, k -> new ArrayList<>()).add("confirmed");
            }

            @Override
            public void failed(String tag, ErrorCode code, String detail) {
                outcomes.computeIfAbsent(tag, k -> new ArrayList<>()).add(code.name());
            }

            @Override
            public void suspect(String tag, ErrorCode code, String detail) {
                outcomes.computeIfAbsent(tag, k -> new ArrayList<>()).add("suspect:" + code.name());
            }

            @Override
            public void unknown(String tag, String detail) {
                outcomes.computeIfAbsent(tag, k -> new ArrayList<>()).add("unknown");
            }
        };
        ConfirmPublisher<String> publisher = ConfirmPublisher.open(broker.connection, 1_000, 2_000, listener, spans);

        Set<Integer> brokerSettled = new HashSet<>();
        Set<String> brokerAcked = new HashSet<>();
        Set<String> poisoned = new HashSet<>();
        Set<String> handedBack = new HashSet<>();
        // handed back by a publisher retired before the send (no span was started) vs during it
        Set<String> refusedRetired = new HashSet<>();
        Map<String, String> tagOfId = new HashMap<>();
        int n = 0;
        for (Step step : history) {
            if (step instanceof Good) {
                String tag = "m" + n++;
                send(publisher, tag, new AMQP.BasicProperties.Builder(), "k", 10, tagOfId, handedBack, refusedRetired);
            } else if (step instanceof Poison p) {
                String tag = "m" + n++;
                poisoned.add(tag);
                AMQP.BasicProperties.Builder b = new AMQP.BasicProperties.Builder();
                String key = "k";
                int body = 10;
                switch (p.kind()) {
                    case "correlationId" -> b.correlationId("c".repeat(256));
                    case "type" -> b.type("ü".repeat(128));
                    case "routingKey" -> key = "r".repeat(256);
                    case "headerName" -> b.headers(Map.of("h".repeat(256), 1));
                    case "bigInteger" -> b.headers(Map.of("n", BigInteger.TWO.pow(64)));
                    case "decimal" -> b.headers(Map.of("d", new java.math.BigDecimal("123456789012.5")));
                    case "frame" -> b.headers(Map.of("big", "x".repeat(5_000)));
                    default -> body = 2_001;
                }
                send(publisher, tag, b, key, body, tagOfId, handedBack, refusedRetired);
            } else if (step instanceof Surprise s) {
                broker.failNextPublish(
                        s.encodingRefusal()
                                ? new IllegalArgumentException("Invalid value type: unforeseen")
                                : new IllegalStateException("unforeseen"));
                String tag = "m" + n++;
                send(publisher, tag, new AMQP.BasicProperties.Builder(), "k", 10, tagOfId, handedBack, refusedRetired);
            } else if (step instanceof Ack a) {
                int tag = pick(broker.published.size(), brokerSettled, a.fraction());
                if (tag > 0) {
                    for (int t = a.multiple() ? 1 : tag; t <= tag; t++) {
                        if (brokerSettled.add(t)) {
                            brokerAcked.add(broker.published.get(t - 1));
                        }
                    }
                    broker.ack(tag, a.multiple());
                }
            } else if (step instanceof Nack k) {
                int tag = pick(broker.published.size(), brokerSettled, k.fraction());
                if (tag > 0 && brokerSettled.add(tag)) {
                    broker.nack(tag, false);
                }
            } else if (step instanceof Return r) {
                int tag = pick(broker.published.size(), brokerSettled, r.fraction());
                if (tag > 0 && !brokerSettled.contains(tag)) {
                    // RabbitMQ returns an unroutable message, then acks it
                    broker.returnUnroutable(broker.published.get(tag - 1));
                    brokerSettled.add(tag);
                    broker.ack(tag, false);
                }
            }
        }
        // the broker settles everything else it received, and one more frame decides pending nacks
        for (int t = 1; t <= broker.published.size(); t++) {
            if (brokerSettled.add(t)) {
                brokerAcked.add(broker.published.get(t - 1));
                broker.ack(t, false);
            }
        }
        broker.ack(broker.published.size() + 1L, false);

        for (int i = 0; i < n; i++) {
            String tag = "m" + i;
            List<String> got = outcomes.getOrDefault(tag, List.of());
            if (handedBack.contains(tag)) {
                assertEquals(List.of(), got, tag + ": refused by a retired channel, the caller keeps it");
                continue;
            }
            assertEquals(1, got.size(), tag + " is reported exactly once: " + got + " in " + history);
            if (got.get(0).equals("confirmed")) {
                assertTrue(
                        brokerAcked.contains("id-" + tag),
                        tag + " was reported confirmed though the broker never acked it; history " + history);
            }
            if (poisoned.contains(tag)) {
                assertEquals(List.of("UNENCODABLE"), got, tag + " can never be sent");
                assertTrue(!broker.published.contains("id-" + tag), tag + " never reached the broker");
            }
        }
        assertEquals(1_000, publisher.availableSlots(), "every slot came back");
        if (traced) {
            everyPublishEndedOnceWithItsOutcome(
                    exported.getFinishedSpanItems(), n, outcomes, handedBack, refusedRetired, history);
        } else {
            assertEquals(List.of(), exported.getFinishedSpanItems(), "tracing off starts no span");
        }
    }

    /**
     * With tracing on, each message reported has exactly one ended span, ERROR unless confirmed,
     * its error code as {@code error.type}; a message handed back to the caller has none, or one
     * that says it was not sent.
     */
    private static void everyPublishEndedOnceWithItsOutcome(
            List<SpanData> finished,
            int n,
            Map<String, List<String>> outcomes,
            Set<String> handedBack,
            Set<String> refusedRetired,
            List<Step> history) {
        Map<String, List<SpanData>> byId = new HashMap<>();
        for (SpanData span : finished) {
            String id = span.getAttributes().get(AttributeKey.stringKey("messaging.message.id"));
            byId.computeIfAbsent(id, k -> new ArrayList<>()).add(span);
        }
        for (int i = 0; i < n; i++) {
            String tag = "m" + i;
            List<SpanData> mine = byId.getOrDefault("id-" + tag, List.of());
            if (refusedRetired.contains(tag)) {
                assertEquals(List.of(), mine, tag + " refused by a retired publisher starts no span; " + history);
                continue;
            }
            if (handedBack.contains(tag)) {
                assertEquals(1, mine.size(), tag + " handed back: " + mine + " in " + history);
                assertTrue(
                        mine.get(0).getEvents().stream()
                                .anyMatch(e -> e.getName().startsWith("not sent")),
                        tag + " handed back says it was not sent: " + mine + " in " + history);
                continue;
            }
            assertEquals(1, mine.size(), tag + " has one publish span: " + mine + " in " + history);
            SpanData span = mine.get(0);
            String outcome = outcomes.get(tag).get(0);
            if (outcome.equals("confirmed")) {
                assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode(), tag + " " + span);
            } else {
                assertEquals(StatusCode.ERROR, span.getStatus().getStatusCode(), tag + " " + span);
            }
            if (!outcome.equals("confirmed") && !outcome.equals("unknown")) {
                String code = span.getAttributes().get(AttributeKey.stringKey("error.type"));
                String expected = outcome.startsWith("suspect:") ? outcome.substring("suspect:".length()) : outcome;
                assertEquals(expected, code, tag + " " + span);
            }
        }
    }

    private static void send(
            ConfirmPublisher<String> publisher,
            String tag,
            AMQP.BasicProperties.Builder props,
            String routingKey,
            int bodyBytes,
            Map<String, String> tagOfId,
            Set<String> handedBack,
            Set<String> refusedRetired)
            throws InterruptedException {
        assertTrue(publisher.acquireSlot(Duration.ZERO));
        tagOfId.put("id-" + tag, tag);
        boolean retiredBefore = publisher.retiredBecause().isPresent();
        try {
            publisher.publish(
                    new OutboundMessage(
                            "orders.events",
                            routingKey,
                            props.messageId("id-" + tag).build(),
                            new byte[bodyBytes]),
                    tag);
        } catch (IOException retired) {
            handedBack.add(tag);
            if (retiredBefore) {
                refusedRetired.add(tag);
            }
        }
    }

    /** A broker tag not yet settled, chosen by {@code fraction}; 0 when there is none. */
    private static int pick(int received, Set<Integer> settled, double fraction) {
        List<Integer> open = new ArrayList<>();
        for (int t = 1; t <= received; t++) {
            if (!settled.contains(t)) {
                open.add(t);
            }
        }
        return open.isEmpty() ? 0 : open.get(Math.min(open.size() - 1, (int) (fraction * open.size())));
    }
}
