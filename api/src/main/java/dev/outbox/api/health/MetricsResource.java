package dev.outbox.api.health;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;

/** {@code /metrics} in Prometheus text format: the outbox gauges and the JVM's meters. */
@Path("/metrics")
public final class MetricsResource {
    private final PrometheusMeterRegistry registry;

    public MetricsResource(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @Operation(
            operationId = "metrics",
            tags = "health",
            summary = "Prometheus metrics",
            responses = {@ApiResponse(responseCode = "200", description = "Prometheus text format 0.0.4.")})
    @GET
    @Produces("text/plain; version=0.0.4; charset=utf-8")
    public String scrape() {
        return registry.scrape();
    }
}
