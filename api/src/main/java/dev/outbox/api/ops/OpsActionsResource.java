package dev.outbox.api.ops;

import dev.outbox.api.docs.ConsoleAction;
import dev.outbox.api.docs.Example;
import dev.outbox.api.docs.Fixture;
import dev.outbox.ops.views.OpsActionViews;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;

/**
 * The operator API's repairs of one row: retry, cancel, replay, release its lease. Only the
 * operator token may act ({@link OpsAuthFilter}); every action goes through {@link OpsService},
 * which checks the row's state and audits what it did. Repairs of many rows at once are
 * {@link OpsBulkResource}'s.
 */
@Path("/ops")
@Produces(MediaType.APPLICATION_JSON)
public final class OpsActionsResource {
    private final OpsService ops;

    @Inject
    public OpsActionsResource(OpsService ops) {
        this.ops = ops;
    }

    @Operation(
            operationId = "retryRow",
            tags = "ops",
            summary = "Retry a PARKED or RETRYABLE_FAILED row now, with a fresh attempt budget",
            responses = {
                @ApiResponse(responseCode = "200", description = OpsRequests.DONE),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            })
    @Fixture("parkedRow")
    @ConsoleAction(label = "Retry now", order = 1)
    @Example(name = "valid", summary = "With a reason", body = "{\"reason\":\"exchange fixed\"}", status = 200)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/retry")
    public OpsActionViews.ActionResult retry(
            @Parameter(ref = "#/components/parameters/RowId") @PathParam("id") String id,
            OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.retry(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @Operation(
            operationId = "cancelRow",
            tags = "ops",
            summary = "Cancel a row that must never be published",
            responses = {
                @ApiResponse(responseCode = "200", description = OpsRequests.DONE),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            })
    @Fixture("parkedRow")
    @ConsoleAction(label = "Cancel", order = 5, needsReason = true, danger = true)
    @Example(
            name = "valid",
            summary = "With a reason",
            body = "{\"reason\":\"duplicate of an earlier event\"}",
            status = 200)
    @Example(name = "missing", summary = "No reason", body = "{}", status = 400)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/cancel")
    public OpsActionViews.ActionResult cancel(
            @Parameter(ref = "#/components/parameters/RowId") @PathParam("id") String id,
            @RequestBody(required = true) OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.cancel(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @Operation(
            operationId = "replayRow",
            tags = "ops",
            summary = "Publish a PUBLISHED row again, same messageId",
            responses = {
                @ApiResponse(responseCode = "200", description = OpsRequests.DONE),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            })
    @Fixture("publishedRow")
    @ConsoleAction(label = "Replay", order = 2)
    @Example(
            name = "valid",
            summary = "With a reason",
            body = "{\"reason\":\"consumer lost its database\"}",
            status = 200)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/replay")
    public OpsActionViews.ActionResult replay(
            @Parameter(ref = "#/components/parameters/RowId") @PathParam("id") String id,
            OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.replay(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @Operation(
            operationId = "releaseLease",
            tags = "ops",
            summary = "Take a stuck IN_PROGRESS row from its relay",
            description = "The row becomes due again; the old relay's late mark is refused by the lease fence.",
            responses = {
                @ApiResponse(responseCode = "200", description = OpsRequests.DONE),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            })
    @Fixture("leasedRow")
    @ConsoleAction(label = "Release lease", order = 3)
    @Example(name = "valid", summary = "With a reason", body = "{\"reason\":\"relay host is gone\"}", status = 200)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/release")
    public OpsActionViews.ActionResult release(
            @Parameter(ref = "#/components/parameters/RowId") @PathParam("id") String id,
            OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.releaseLease(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @Operation(
            operationId = "noteRow",
            tags = "ops",
            summary = "Leave a note on a row for the next operator",
            description =
                    "The note (the reason field) goes into the audit log with the row's id, beside its repairs; GET /ops/audit?messageId= lists them. The row is not changed, whatever its status.",
            responses = {
                @ApiResponse(responseCode = "200", description = OpsRequests.DONE),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW)
            })
    @Fixture("parkedRow")
    @ConsoleAction(label = "Add note", order = 4, needsReason = true)
    @Example(
            name = "valid",
            summary = "A note",
            body = "{\"reason\":\"the billing team asked to hold this; see ticket 4711\"}",
            status = 200)
    @Example(name = "empty", summary = "No note", body = "{\"reason\":\" \"}", status = 400)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/note")
    public OpsActionViews.ActionResult note(
            @PathParam("id") String id,
            @RequestBody(required = true) OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.note(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }
}
