package dev.outbox.testkit.otlp;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP trace endpoint on loopback that keeps what it is sent: the collector a test
 * points {@code OTEL_EXPORTER_OTLP_ENDPOINT} at, so the spans the real processes export are read
 * back as they went over the wire (protobuf, gzip or not). Nothing is faked on the sending side.
 */
public final class OtlpReceiver implements AutoCloseable {
    /** One span as exported, with its service and its attributes as strings. */
    public record ReceivedSpan(
            String service,
            String traceId,
            String spanId,
            String parentSpanId,
            String name,
            String kind,
            Map<String, String> attributes,
            String statusCode,
            String statusMessage,
            List<String> events,
            long startNanos,
            long endNanos) {
        public String attribute(String key) {
            return attributes.get(key);
        }

        public boolean isError() {
            return "STATUS_CODE_ERROR".equals(statusCode);
        }
    }

    private static final HexFormat HEX = HexFormat.of();

    private final HttpServer server;
    private final boolean keep;
    private java.util.concurrent.ExecutorService executor;
    private final java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
    /** Appended by the receiving thread, copied by readers: a copy-on-write list would copy it per span. */
    private final List<ReceivedSpan> spans = new ArrayList<>();

    private final AtomicInteger requests = new AtomicInteger();

    private OtlpReceiver(HttpServer server, boolean keep) {
        this.server = server;
        this.keep = keep;
    }

    public static OtlpReceiver start() throws IOException {
        return start(true);
    }

    /**
     * A receiver that answers every export and counts its requests and bytes but decodes and keeps
     * nothing: for measuring what tracing costs the sender on a machine the collector shares, where
     * decoding would be the collector's cost, not the sender's.
     */
    public static OtlpReceiver discarding() throws IOException {
        return start(false);
    }

    private static OtlpReceiver start(boolean keep) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        OtlpReceiver receiver = new OtlpReceiver(server, keep);
        server.createContext("/v1/traces", receiver::handle);
        receiver.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "otlp-receiver");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(receiver.executor);
        server.start();
        return receiver;
    }

    /** For a static field: a receiver that cannot listen on loopback is the test's failure. */
    public static OtlpReceiver startUnchecked() {
        try {
            return start();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The value for {@code OTEL_EXPORTER_OTLP_ENDPOINT} (the SDK appends {@code /v1/traces}). */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The environment that makes a process export here at once, as {@code http/protobuf}. */
    public Map<String, String> env() {
        return Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT", endpoint(),
                "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf",
                "OTEL_BSP_SCHEDULE_DELAY", "100");
    }

    public List<ReceivedSpan> spans() {
        synchronized (spans) {
            return List.copyOf(spans);
        }
    }

    public int requests() {
        return requests.get();
    }

    /** Bytes of the export requests received (after gzip, if any). */
    public long bytes() {
        return bytes.get();
    }

    /** Every span of one trace. */
    public List<ReceivedSpan> trace(String traceId) {
        return spans().stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    /** Waits until a span matches; the spans so far in the failure when none does. */
    public ReceivedSpan await(Predicate<ReceivedSpan> match, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (ReceivedSpan s : spans()) {
                if (match.test(s)) {
                    return s;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no matching span within " + timeout + "; received: " + describe());
            }
            synchronized (spans) {
                spans.wait(50);
            }
        }
    }

    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (ReceivedSpan s : spans()) {
            sb.append("\n  ")
                    .append(s.service())
                    .append(' ')
                    .append(s.kind())
                    .append(" '")
                    .append(s.name())
                    .append("' trace=")
                    .append(s.traceId())
                    .append(" span=")
                    .append(s.spanId())
                    .append(" parent=")
                    .append(s.parentSpanId())
                    .append(' ')
                    .append(s.attributes());
        }
        return sb.toString();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body;
            try (InputStream in =
                    "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                            ? new GZIPInputStream(exchange.getRequestBody())
                            : exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            bytes.addAndGet(body.length);
            if (!keep) {
                requests.incrementAndGet();
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            requests.incrementAndGet();
            List<ReceivedSpan> batch = new ArrayList<>();
            for (ResourceSpans resource : request.getResourceSpansList()) {
                String service =
                        attributes(resource.getResource().getAttributesList()).getOrDefault("service.name", "");
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    for (Span span : scope.getSpansList()) {
                        batch.add(received(service, span));
                    }
                }
            }
            synchronized (spans) {
                spans.addAll(batch);
                spans.notifyAll();
            }
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            if (answer.length > 0) {
                exchange.getResponseBody().write(answer);
            }
        }
    }

    private static ReceivedSpan received(String service, Span span) {
        List<String> events = new ArrayList<>();
        span.getEventsList().forEach(e -> events.add(e.getName()));
        return new ReceivedSpan(
                service,
                hex(span.getTraceId()),
                hex(span.getSpanId()),
                hex(span.getParentSpanId()),
                span.getName(),
                span.getKind().name(),
                attributes(span.getAttributesList()),
                span.getStatus().getCode().name(),
                span.getStatus().getMessage(),
                List.copyOf(events),
                span.getStartTimeUnixNano(),
                span.getEndTimeUnixNano());
    }

    private static String hex(ByteString bytes) {
        return bytes.isEmpty() ? "" : HEX.formatHex(bytes.toByteArray());
    }

    private static Map<String, String> attributes(List<KeyValue> list) {
        Map<String, String> out = new LinkedHashMap<>();
        for (KeyValue kv : list) {
            out.put(kv.getKey(), value(kv.getValue()));
        }
        return out;
    }

    private static String value(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case INT_VALUE -> Long.toString(v.getIntValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            default -> v.toString();
        };
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
