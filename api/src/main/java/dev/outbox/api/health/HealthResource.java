package dev.outbox.api.health;

import dev.outbox.config.HealthReport;
import dev.outbox.persistence.Database;
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

    @GET
    @Path("/live")
    public Response live() {
        return Response.ok("{\"status\":\"UP\"}").build();
    }

    @GET
    @Path("/ready")
    public Response ready() {
        Map<String, String> checks = new LinkedHashMap<>();
        checks.put("database", database.ping());
        HealthReport report = HealthReport.of(checks);
        return Response.status(report.up() ? 200 : 503).entity(report.toJson()).build();
    }
}
