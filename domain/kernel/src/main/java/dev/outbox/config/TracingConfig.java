package dev.outbox.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whether a process traces, and what it hands the OpenTelemetry SDK. Tracing is configured the
 * OpenTelemetry way, with the standard {@code OTEL_*} variables; the few declared here decide
 * whether it is on at all, so that a process with none of them set pays nothing (no SDK, no
 * exporter thread, no-op spans). Every other {@code OTEL_*} variable (protocol, headers,
 * sampler, batch sizes, resource attributes) goes to the SDK as it is.
 *
 * @param enabled an exporter endpoint is set and nothing turns tracing off
 * @param serviceName {@code OTEL_SERVICE_NAME}, or the process's own name
 * @param sdkProperties every {@code OTEL_*} variable, as the SDK's {@code otel.*} properties
 */
public record TracingConfig(boolean enabled, String serviceName, Map<String, String> sdkProperties) {
    static final Setting<Optional<String>> ENDPOINT = Setting.optional(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "an http(s) URL",
            "no spans are exported and tracing costs nothing",
            "where spans go over OTLP/HTTP (`http://collector:4318`; `OTEL_EXPORTER_OTLP_PROTOCOL` is"
                    + " `http/protobuf`, the one protocol the processes ship a sender for); setting it turns tracing"
                    + " on. The SDK reads its other `OTEL_*` variables"
                    + " itself (`OTEL_EXPORTER_OTLP_PROTOCOL`, `_HEADERS`, `OTEL_TRACES_SAMPLER`,"
                    + " `OTEL_BSP_*`, `OTEL_RESOURCE_ATTRIBUTES`)");
    static final Setting<Optional<String>> TRACES_ENDPOINT = Setting.optional(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "an http(s) URL",
            "`OTEL_EXPORTER_OTLP_ENDPOINT` decides",
            "the full URL for spans alone (`http://collector:4318/v1/traces`); setting it turns tracing on too");
    static final Setting<String> EXPORTER = Setting.oneOf(
            "OTEL_TRACES_EXPORTER",
            "otlp",
            List.of("otlp", "none"),
            "`none` keeps tracing off even with an endpoint set");
    static final Setting<Boolean> DISABLED =
            Setting.flag("OTEL_SDK_DISABLED", false, "`true` turns tracing off whatever else is set");
    static final Setting<Optional<String>> SERVICE_NAME = Setting.optional(
            "OTEL_SERVICE_NAME",
            "text",
            "the process's own: `outbox-api`, `outbox-relay`, `outbox-<consumer>`",
            "the service every span of the process is reported under");

    private static final String PREFIX = "OTEL_";

    public static TracingConfig from(Settings settings, String processName) {
        boolean endpoint = settings.get(ENDPOINT).isPresent()
                || settings.get(TRACES_ENDPOINT).isPresent();
        boolean enabled = endpoint && settings.get(EXPORTER).equals("otlp") && !settings.get(DISABLED);
        String service = settings.get(SERVICE_NAME).orElse(processName);
        Map<String, String> properties = new TreeMap<>();
        settings.variablesStartingWith(PREFIX)
                .forEach((name, value) ->
                        properties.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), value));
        return new TracingConfig(enabled, service, Map.copyOf(properties));
    }

    /** Tracing off: what a process without any {@code OTEL_*} variable runs with. */
    public static TracingConfig off(String processName) {
        return new TracingConfig(false, processName, Map.of());
    }
}
