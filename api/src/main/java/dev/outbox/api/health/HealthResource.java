package dev.outbox.api.health;

import dev.outbox.api.docs.Returns;
import dev.outbox.config.HealthReport;
import dev.outbox.persistence.Database;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /health/live}: the process answers. {@code /health/ready}: the API can take writes, which
 * needs its database and nothing else. The API never talks to the broker (the relay publishes), so
 * a broker outage must not take it out of rotation: that is when the outbox has to keep accepting
 * writes. A load balancer should route on readiness and restart on liveness only.
 */
@Path("/health")
@Produces(MediaType.APPLICATION_JSON)
public final class HealthResource {
    private final Database database;

    public HealthResource(Database database) {
        this.database = database;
    }

    @Operation(
            operationId = "live",
            tags = "health",
            summary = "Liveness",
            responses = {@ApiResponse(responseCode = "200", description = "The process answers.")})
    @Returns(HealthView.class)
    @GET
    @Path("/live")
    public Response live() {
        return Response.ok("{\"status\":\"UP\"}").build();
    }

    @Operation(
            operationId = "ready",
            tags = "health",
            summary = "Readiness: the API can take writes (its database answers)",
            description =
                    "Checks the database only: that is all the API needs to take writes. The broker is not checked (the API never talks to it; the relay publishes), so a broker outage does not take the write path out of rotation.",
            responses = {
                @ApiResponse(responseCode = "200", description = "Ready."),
                @ApiResponse(
                        responseCode = "503",
                        description = "Not ready: the database does not answer; checks.database says why.",
                        content =
                                @Content(
                                        mediaType = "application/json",
                                        schema = @Schema(implementation = HealthView.class)))
            })
    @Returns(HealthView.class)
    @GET
    @Path("/ready")
    public Response ready() {
        Map<String, String> checks = new LinkedHashMap<>();
        checks.put("database", database.ping());
        HealthReport report = HealthReport.of(checks);
        return Response.status(report.up() ? 200 : 503).entity(report.toJson()).build();
    }
}
