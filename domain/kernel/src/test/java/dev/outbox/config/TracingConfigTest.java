package dev.outbox.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.tracing.Tracing;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Tracing is on only when an exporter endpoint is set and nothing turns it off. */
class TracingConfigTest {
    private static TracingConfig of(Map<String, String> env) {
        return TracingConfig.from(new Settings(env), "outbox-relay");
    }

    @Test
    void nothingSetIsOffAndCostsNoSdk() {
        TracingConfig config = of(Map.of("OUTBOX_DB_URL", "jdbc:postgresql://h/db"));
        assertFalse(config.enabled());
        assertEquals("outbox-relay", config.serviceName());
        try (Tracing tracing = Tracing.start(config)) {
            assertFalse(tracing.enabled());
            assertFalse(tracing.tracer().spanBuilder("x").startSpan().isRecording());
        }
    }

    @Test
    void anEndpointTurnsItOnAndEveryOtelVariableGoesToTheSdk() {
        TracingConfig config = of(Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318",
                "OTEL_SERVICE_NAME", "relay-eu",
                "OTEL_BSP_SCHEDULE_DELAY", "100"));
        assertTrue(config.enabled());
        assertEquals("relay-eu", config.serviceName());
        assertEquals("100", config.sdkProperties().get("otel.bsp.schedule.delay"));
        assertEquals("http://127.0.0.1:4318", config.sdkProperties().get("otel.exporter.otlp.endpoint"));
        try (Tracing tracing = Tracing.start(config)) {
            assertTrue(tracing.enabled());
            assertTrue(tracing.tracer().spanBuilder("x").startSpan().isRecording());
        }
    }

    @Test
    void theTracesEndpointAloneTurnsItOnToo() {
        assertTrue(of(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:4318/v1/traces"))
                .enabled());
    }

    @Test
    void noneOrDisabledKeepItOffWhateverTheEndpoint() {
        assertFalse(of(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_TRACES_EXPORTER", "none"))
                .enabled());
        assertFalse(of(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_SDK_DISABLED", "true"))
                .enabled());
    }

    @Test
    void aBadValueStopsStartUpNamingIt() {
        ConfigurationException unknown = assertThrows(
                ConfigurationException.class,
                () -> of(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_TRACES_EXPORTER", "zipkin")));
        assertTrue(unknown.getMessage().contains("OTEL_TRACES_EXPORTER"), unknown.getMessage());
        ConfigurationException protocol = assertThrows(
                ConfigurationException.class,
                () -> Tracing.start(of(Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT",
                        "http://c:4318",
                        "OTEL_EXPORTER_OTLP_PROTOCOL",
                        "carrier-pigeon"))));
        assertTrue(protocol.getMessage().startsWith("tracing: "), protocol.getMessage());
        // gRPC needs a sender the processes do not ship (OkHttp or Netty): refused at start, not at export
        ConfigurationException grpc = assertThrows(
                ConfigurationException.class,
                () -> Tracing.start(of(Map.of(
                        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"))));
        assertTrue(grpc.getMessage().contains("GrpcSenderProvider"), grpc.getMessage());
    }

    @Test
    void theCollectorsHeadersAreASecretInTheStartUpLog() {
        Settings settings = new Settings(Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318",
                "OTEL_EXPORTER_OTLP_HEADERS", "api-key=very-secret"));
        TracingConfig.from(settings, "outbox-api");
        assertFalse(settings.describe().contains("very-secret"), settings.describe());
    }

    @Test
    void aCollectorThatCannotBeReachedIsReportedInTheProcesssLogs() throws Exception {
        ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> seen =
                new ch.qos.logback.core.read.ListAppender<>();
        seen.start();
        root.addAppender(seen);
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        try (Tracing tracing = Tracing.start(of(Map.of(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://127.0.0.1:" + closedPort,
                "OTEL_EXPORTER_OTLP_TIMEOUT",
                "1000")))) {
            tracing.tracer().spanBuilder("lost").startSpan().end();
        } finally {
            root.detachAppender(seen);
        }
        assertTrue(
                seen.list.stream()
                        .anyMatch(e -> e.getLoggerName().startsWith("io.opentelemetry")
                                && e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN)),
                "the SDK's export failure reaches logback: " + seen.list);
    }

    @Test
    void aCollectorThatHangsNeitherBlocksTheWorkNorTheStopPastItsBound() throws Exception {
        // accepts the connection and never answers: packets go nowhere, nothing is refused
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0)) {
            java.util.List<java.net.Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (java.io.IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            Tracing tracing = Tracing.start(of(Map.of(
                    "OTEL_EXPORTER_OTLP_ENDPOINT",
                    "http://127.0.0.1:" + silent.getLocalPort(),
                    "OTEL_BSP_SCHEDULE_DELAY",
                    "10")));
            long spansStarted = System.nanoTime();
            for (int i = 0; i < 5_000; i++) {
                tracing.tracer()
                        .spanBuilder("while the collector hangs")
                        .startSpan()
                        .end();
            }
            long working = System.nanoTime() - spansStarted;
            long closing = System.nanoTime();
            tracing.close();
            long closed = System.nanoTime() - closing;
            assertTrue(
                    working < java.time.Duration.ofSeconds(2).toNanos(),
                    "5,000 spans took " + working / 1_000_000 + " ms: ending a span must not wait for the export");
            assertTrue(
                    closed < Tracing.CLOSE_WAIT.plusSeconds(2).toNanos(),
                    "close took " + closed / 1_000_000 + " ms against its bound " + Tracing.CLOSE_WAIT);
            for (java.net.Socket s : held) {
                s.close();
            }
        }
    }
}
