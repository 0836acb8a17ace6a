package dev.outbox.api.ops;

import dev.outbox.api.docs.Fixture;
import dev.outbox.api.http.ApiException;
import dev.outbox.domain.InvalidInputException;
import dev.outbox.domain.Violation;
import dev.outbox.ops.views.OpsActionViews;
import dev.outbox.ops.views.OpsOverviewViews;
import dev.outbox.ops.views.OpsViews;
import dev.outbox.persistence.ops.OutboxQuery;
import dev.outbox.persistence.relay.RelayRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The operator API's reads (see api/README.md, "Operating it" and {@code ops/RUNBOOK.md}): search
 * and show rows, counts, cross-checks, relays, the audit log and who is asking. Either token may
 * read ({@link OpsAuthFilter}); the repairs are {@link OpsActionsResource}'s. A GET takes no body,
 * so none of these declares what it consumes (a class-wide {@code @Consumes} made Jersey refuse a
 * GET naming a Content-Type with 415).
 */
@Path("/ops")
@Produces(MediaType.APPLICATION_JSON)
public final class OpsResource {
    private final OpsService ops;
    private final RelayRegistry relays;

    @Inject
    public OpsResource(OpsService ops, RelayRegistry relays) {
        this.ops = ops;
        this.relays = relays;
    }

    @Operation(
            operationId = "searchOutbox",
            tags = "ops",
            summary = "Search outbox rows",
            description = "Newest first. The read-only token sees payloadBytes and payloadSha256 instead of payloads.",
            responses = {@ApiResponse(responseCode = "200", description = "Search outbox rows")})
    @Fixture("parkedRow")
    @GET
    @Path("/outbox")
    public OpsViews.Page search(
            @Parameter(example = "PARKED", schema = @Schema(type = "string")) @QueryParam("status") String status,
            @Parameter(schema = @Schema(type = "string")) @QueryParam("messageType") String messageType,
            @Parameter(schema = @Schema(type = "string")) @QueryParam("aggregateType") String aggregateType,
            @Parameter(
                            description = "With aggregateType: every version of one aggregate.",
                            schema = @Schema(type = "string"))
                    @QueryParam("aggregateId")
                    String aggregateId,
            @Parameter(schema = @Schema(type = "string")) @QueryParam("correlationId") String correlationId,
            @Parameter(schema = @Schema(type = "string")) @QueryParam("tenantId") String tenantId,
            @Parameter(schema = @Schema(type = "string")) @QueryParam("errorCode") String errorCode,
            @Parameter(description = OpsRequests.DATE_TIME, schema = @Schema(type = "string", format = "date-time"))
                    @QueryParam("createdFrom")
                    String createdFrom,
            @Parameter(description = OpsRequests.DATE_TIME, schema = @Schema(type = "string", format = "date-time"))
                    @QueryParam("createdTo")
                    String createdTo,
            @Parameter(schema = @Schema(type = "integer", minimum = "1", maximum = "500", defaultValue = "50"))
                    @QueryParam("limit")
                    String limit,
            @Parameter(
                            description =
                                    "The next of the previous page (keyset paging); a cursor this API did not issue is 400.",
                            schema = @Schema(type = "string"))
                    @QueryParam("after")
                    String after,
            @Context ContainerRequestContext request) {
        List<Violation> errors = new ArrayList<>();
        // any value of the stored shape: a status or code a newer version wrote matches its rows
        String st = OpsRequests.statusFilter("status", status, errors);
        String code = OpsRequests.errorCodeFilter("errorCode", errorCode, errors);
        Instant from = OpsRequests.instant("createdFrom", createdFrom, errors);
        Instant to = OpsRequests.instant("createdTo", createdTo, errors);
        int size = OpsRequests.integer("limit", limit, 50, 1, 500, errors);
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        Cursors.Position position = after == null || after.isBlank() ? null : Cursors.decode(after);
        OutboxQuery query = new OutboxQuery(
                st,
                OpsRequests.blankToNull(messageType),
                OpsRequests.blankToNull(aggregateType),
                OpsRequests.blankToNull(aggregateId),
                OpsRequests.blankToNull(correlationId),
                OpsRequests.blankToNull(tenantId),
                code,
                from,
                to,
                position == null ? null : position.createdAt(),
                position == null ? null : position.id(),
                size + 1);
        return ops.search(query, OpsPrincipal.of(request).canWrite());
    }

    @Operation(
            operationId = "outboxRow",
            tags = "ops",
            summary = "One outbox row",
            responses = {
                @ApiResponse(responseCode = "200", description = "One outbox row"),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW)
            })
    @Fixture("parkedRow")
    @GET
    @Path("/outbox/{id}")
    public OpsViews.Row detail(
            @Parameter(ref = "#/components/parameters/RowId") @PathParam("id") String id,
            @Context ContainerRequestContext request) {
        UUID messageId = OpsRequests.id(id);
        return ops.detail(messageId, OpsPrincipal.of(request).canWrite())
                .orElseThrow(() -> ApiException.notFound("message " + messageId));
    }

    @Operation(
            operationId = "outboxStats",
            tags = "ops",
            summary =
                    "Counts by status (finished ones exact up to 10,000, estimated above), oldest pending age, parked by error code",
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description =
                                "Counts by status (finished ones exact up to 10,000, estimated above), oldest pending age, parked by error code")
            })
    @GET
    @Path("/outbox/stats")
    public OpsOverviewViews.Stats stats() {
        return ops.stats();
    }

    @Operation(
            operationId = "reconcile",
            tags = "ops",
            summary =
                    "Cross-checks: orders without events, expired leases, blocked aggregates, waiting consumers, unfinished side effects",
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description =
                                "Cross-checks: orders without events, expired leases, blocked aggregates, waiting consumers, unfinished side effects")
            })
    @GET
    @Path("/outbox/reconcile")
    public OpsOverviewViews.Reconcile reconcile() {
        return ops.reconcile();
    }

    /**
     * Who the presented token is. The console shows action controls only to the operator token;
     * the read-only token would be refused by every action anyway.
     */
    @Operation(
            operationId = "opsSession",
            tags = "ops",
            summary = "Who the token is: its role, whether it may change anything, the operator name given",
            responses = {@ApiResponse(responseCode = "200", description = "The role of the token presented")})
    @GET
    @Path("/session")
    public OpsOverviewViews.Session session(@Context ContainerRequestContext request) {
        OpsPrincipal p = OpsPrincipal.of(request);
        return new OpsOverviewViews.Session(p.role().label(), p.canWrite(), p.actor());
    }

    /** Every registered relay: alive while it holds its liveness lock (V7), and the rows it holds. */
    @Operation(
            operationId = "relays",
            tags = "ops",
            summary = "Registered relays, alive or not, and the rows each holds",
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = "Registered relays, alive or not, and the rows each holds")
            })
    @GET
    @Path("/relays")
    public OpsOverviewViews.Relays relays() {
        return StoredViews.relays(relays.list());
    }

    @Operation(
            operationId = "audit",
            tags = "ops",
            summary = "The audit log of operator actions, newest first",
            responses = {
                @ApiResponse(responseCode = "200", description = "The audit log of operator actions, newest first")
            })
    @GET
    @Path("/audit")
    public OpsActionViews.AuditPage audit(
            @Parameter(schema = @Schema(type = "string", format = "uuid")) @QueryParam("messageId") String messageId,
            @Parameter(schema = @Schema(type = "integer", minimum = "1", maximum = "500", defaultValue = "50"))
                    @QueryParam("limit")
                    String limit,
            @Parameter(schema = @Schema(type = "string")) @QueryParam("after") String after) {
        List<Violation> errors = new ArrayList<>();
        int size = OpsRequests.integer("limit", limit, 50, 1, 500, errors);
        Long before = null;
        if (after != null && !after.isBlank()) {
            try {
                before = Long.parseLong(after);
            } catch (NumberFormatException e) {
                errors.add(new Violation("after", "is not a cursor returned by this API"));
            }
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        return ops.audit(before, messageId == null || messageId.isBlank() ? null : OpsRequests.id(messageId), size);
    }
}
