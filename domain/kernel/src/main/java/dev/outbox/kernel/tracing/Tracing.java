package dev.outbox.kernel.tracing;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.JulLogging;
import dev.outbox.config.TracingConfig;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's tracing: the OpenTelemetry SDK when {@link TracingConfig#enabled()}, else the no-op
 * API, whose spans are shared constants that record nothing (the cost of tracing off is a few
 * method calls per message, measured in ops/deploy/README.md, "Tracing"). One per process, not global: the
 * launcher runs the API, the relay and the consumers in one JVM, each reported as its own
 * service. Closing it exports the spans still buffered; it is the last thing a process stops.
 */
public final class Tracing implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);
    /** The instrumentation scope of every span this project makes. */
    public static final String SCOPE = "dev.outbox";
    /** The longest {@link #close} waits for the last spans to be exported. */
    public static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final OpenTelemetry openTelemetry;
    private final OpenTelemetrySdk sdk;
    private final Tracer tracer;

    private Tracing(OpenTelemetry openTelemetry, OpenTelemetrySdk sdk) {
        this.openTelemetry = openTelemetry;
        this.sdk = sdk;
        this.tracer = openTelemetry.getTracer(SCOPE);
    }

    /** Tracing off. */
    public static Tracing off() {
        return new Tracing(OpenTelemetry.noop(), null);
    }

    /** An {@link OpenTelemetry} someone else built (an adopting service's, a test's). */
    public static Tracing of(OpenTelemetry openTelemetry) {
        return new Tracing(openTelemetry, null);
    }

    /**
     * Starts the SDK from the configuration: OTLP spans only (metrics stay Prometheus's, logs stay
     * on standard output), the service named as configured.
     *
     * @throws ConfigurationException when the SDK refuses a variable (an endpoint that is not a
     *     URL, an unknown protocol)
     */
    public static Tracing start(TracingConfig config) {
        if (!config.enabled()) {
            return off();
        }
        return Sdk.start(config);
    }

    /**
     * The SDK's start, in a class of its own: the verifier loads a method's catch types when it
     * links the class, and the SDK is optional in the kernel, so {@link Tracing} itself ({@link
     * #off}, {@link #of}, {@link #CLOSE_WAIT}) stays loadable on a class path without it.
     */
    private static final class Sdk {
        private Sdk() {}

        static Tracing start(TracingConfig config) {
            // the SDK reports a collector it cannot reach through java.util.logging
            JulLogging.route();
            try {
                OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                        .addPropertiesSupplier(() -> Map.of(
                                // the JDK's HTTP client sends http/protobuf; gRPC would need OkHttp or Netty
                                "otel.exporter.otlp.protocol", "http/protobuf",
                                "otel.metrics.exporter", "none",
                                "otel.logs.exporter", "none",
                                "otel.service.name", config.serviceName()))
                        // the process's settings win over the SDK's own reading of the environment, so
                        // a process started with settings of its own (a test, the launcher) traces as told
                        .addPropertiesCustomizer(properties -> {
                            Map<String, String> own = new java.util.HashMap<>(config.sdkProperties());
                            // metrics are Prometheus's and logs standard output's, whatever OTEL_* says
                            own.put("otel.metrics.exporter", "none");
                            own.put("otel.logs.exporter", "none");
                            return own;
                        })
                        .disableShutdownHook()
                        .build()
                        .getOpenTelemetrySdk();
                LOG.info("tracing on: spans of service {} exported over OTLP", config.serviceName());
                return new Tracing(sdk, sdk);
            } catch (LinkageError e) {
                // a runtime without a module the exporter needs (a JRE cut too small): say so, exit 2
                throw new ConfigurationException("tracing: the OTLP exporter cannot load on this Java runtime (" + e
                        + "); a jlink image needs java.net.http");
            } catch (io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException e) {
                Throwable cause = e.getCause();
                throw new ConfigurationException(
                        "tracing: " + e.getMessage() + (cause == null ? "" : " (" + cause.getMessage() + ")"));
            }
        }
    }

    public boolean enabled() {
        return sdk != null;
    }

    public OpenTelemetry openTelemetry() {
        return openTelemetry;
    }

    /** The tracer of this project's spans. */
    public Tracer tracer() {
        return tracer;
    }

    /** Exports what is buffered (at most 5 s) and stops the SDK. */
    @Override
    public void close() {
        if (sdk == null) {
            return;
        }
        CompletableResultCode done = sdk.shutdown().join(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (!done.isSuccess()) {
            LOG.warn("tracing: the last spans could not be exported within 5 s");
        }
    }
}
