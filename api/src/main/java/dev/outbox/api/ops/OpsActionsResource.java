package dev.outbox.api.ops;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.extensions.Extension;
import io.swagger.v3.oas.annotations.extensions.ExtensionProperty;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
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
            requestBody =
                    @RequestBody(
                            required = false,
                            content =
                                    @Content(
                                            mediaType = "application/json",
                                            schema = @Schema(implementation = OpsActionViews.ReasonRequest.class),
                                            examples = {
                                                @ExampleObject(
                                                        name = "valid",
                                                        summary = "With a reason",
                                                        value = "{\"reason\":\"exchange fixed\"}",
                                                        extensions =
                                                                @Extension(
                                                                        properties =
                                                                                @ExtensionProperty(
                                                                                        name = "expect-status",
                                                                                        value = "200",
                                                                                        parseValue = true)))
                                            })),
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = OpsRequests.DONE,
                        content =
                                @Content(
                                        mediaType = "application/json",
                                        schema = @Schema(implementation = OpsActionViews.ActionResult.class))),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            },
            extensions = {
                @Extension(properties = @ExtensionProperty(name = "fixture", value = "parkedRow")),
                @Extension(
                        name = "console",
                        properties = {
                            @ExtensionProperty(name = "label", value = "Retry now"),
                            @ExtensionProperty(name = "order", value = "1")
                        })
            })
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/retry")
    public OpsActionViews.ActionResult retry(
            @Parameter(description = OpsRequests.ROW_ID, schema = @Schema(type = "string", format = "uuid"))
                    @PathParam("id")
                    String id,
            OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.retry(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @Operation(
            operationId = "cancelRow",
            tags = "ops",
            summary = "Cancel a row that must never be published",
            requestBody =
                    @RequestBody(
                            required = true,
                            content =
                                    @Content(
                                            mediaType = "application/json",
                                            schema = @Schema(implementation = OpsActionViews.ReasonRequest.class),
                                            examples = {
                                                @ExampleObject(
                                                        name = "valid",
                                                        summary = "With a reason",
                                                        value = "{\"reason\":\"duplicate of an earlier event\"}",
                                                        extensions =
                                                                @Extension(
                                                                        properties =
                                                                                @ExtensionProperty(
                                                                                        name = "expect-status",
                                                                                        value = "200",
                                                                                        parseValue = true))),
                                                @ExampleObject(
                                                        name = "missing",
                                                        summary = "No reason",
                                                        value = "{}",
                                                        extensions =
                                                                @Extension(
                                                                        properties =
                                                                                @ExtensionProperty(
                                                                                        name = "expect-status",
                                                                                        value = "400",
                                                                                        parseValue = true)))
                                            })),
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = OpsRequests.DONE,
                        content =
                                @Content(
                                        mediaType = "application/json",
                                        schema = @Schema(implementation = OpsActionViews.ActionResult.class))),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            },
            extensions = {
                @Extension(properties = @ExtensionProperty(name = "fixture", value = "parkedRow")),
                @Extension(
                        name = "console",
                        properties = {
                            @ExtensionProperty(name = "label", value = "Cancel"),
                            @ExtensionProperty(name = "order", value = "5"),
                            @ExtensionProperty(name = "style", value = "danger"),
                            @ExtensionProperty(name = "needs", value = "reason")
                        })
            })
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/cancel")
    public OpsActionViews.ActionResult cancel(
            @Parameter(description = OpsRequests.ROW_ID, schema = @Schema(type = "string", format = "uuid"))
                    @PathParam("id")
                    String id,
            OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.cancel(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @Operation(
            operationId = "replayRow",
            tags = "ops",
            summary = "Publish a PUBLISHED row again, same messageId",
            requestBody =
                    @RequestBody(
                            required = false,
                            content =
                                    @Content(
                                            mediaType = "application/json",
                                            schema = @Schema(implementation = OpsActionViews.ReasonRequest.class),
                                            examples = {
                                                @ExampleObject(
                                                        name = "valid",
                                                        summary = "With a reason",
                                                        value = "{\"reason\":\"consumer lost its database\"}",
                                                        extensions =
                                                                @Extension(
                                                                        properties =
                                                                                @ExtensionProperty(
                                                                                        name = "expect-status",
                                                                                        value = "200",
                                                                                        parseValue = true)))
                                            })),
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = OpsRequests.DONE,
                        content =
                                @Content(
                                        mediaType = "application/json",
                                        schema = @Schema(implementation = OpsActionViews.ActionResult.class))),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            },
            extensions = {
                @Extension(properties = @ExtensionProperty(name = "fixture", value = "publishedRow")),
                @Extension(
                        name = "console",
                        properties = {
                            @ExtensionProperty(name = "label", value = "Replay"),
                            @ExtensionProperty(name = "order", value = "2")
                        })
            })
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/replay")
    public OpsActionViews.ActionResult replay(
            @Parameter(description = OpsRequests.ROW_ID, schema = @Schema(type = "string", format = "uuid"))
                    @PathParam("id")
                    String id,
            OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.replay(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @Operation(
            operationId = "releaseLease",
            tags = "ops",
            summary = "Take a stuck IN_PROGRESS row from its relay",
            description = "The row becomes due again; the old relay's late mark is refused by the lease fence.",
            requestBody =
                    @RequestBody(
                            required = false,
                            content =
                                    @Content(
                                            mediaType = "application/json",
                                            schema = @Schema(implementation = OpsActionViews.ReasonRequest.class),
                                            examples = {
                                                @ExampleObject(
                                                        name = "valid",
                                                        summary = "With a reason",
                                                        value = "{\"reason\":\"relay host is gone\"}",
                                                        extensions =
                                                                @Extension(
                                                                        properties =
                                                                                @ExtensionProperty(
                                                                                        name = "expect-status",
                                                                                        value = "200",
                                                                                        parseValue = true)))
                                            })),
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = OpsRequests.DONE,
                        content =
                                @Content(
                                        mediaType = "application/json",
                                        schema = @Schema(implementation = OpsActionViews.ActionResult.class))),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            },
            extensions = {
                @Extension(properties = @ExtensionProperty(name = "fixture", value = "leasedRow")),
                @Extension(
                        name = "console",
                        properties = {
                            @ExtensionProperty(name = "label", value = "Release lease"),
                            @ExtensionProperty(name = "order", value = "3")
                        })
            })
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/release")
    public OpsActionViews.ActionResult release(
            @Parameter(description = OpsRequests.ROW_ID, schema = @Schema(type = "string", format = "uuid"))
                    @PathParam("id")
                    String id,
            OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.releaseLease(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    /**
     * Who the presented token is. The console shows action controls only to the operator token;
     * the read-only token would be refused by every action anyway.
     */
    @Operation(
            operationId = "noteRow",
            tags = "ops",
            summary = "Leave a note on a row for the next operator",
            description = "The note (the reason field) goes into the audit log with the row's id, beside its"
                    + " repairs; GET /ops/audit?messageId= lists them. The row is not changed, whatever its status.",
            requestBody =
                    @RequestBody(
                            required = true,
                            content =
                                    @Content(
                                            mediaType = "application/json",
                                            schema = @Schema(implementation = OpsActionViews.ReasonRequest.class),
                                            examples = {
                                                @ExampleObject(
                                                        name = "valid",
                                                        summary = "A note",
                                                        value =
                                                                "{\"reason\":\"the billing team asked to hold this; see ticket 4711\"}",
                                                        extensions =
                                                                @Extension(
                                                                        properties =
                                                                                @ExtensionProperty(
                                                                                        name = "expect-status",
                                                                                        value = "200",
                                                                                        parseValue = true))),
                                                @ExampleObject(
                                                        name = "empty",
                                                        summary = "No note",
                                                        value = "{\"reason\":\" \"}",
                                                        extensions =
                                                                @Extension(
                                                                        properties =
                                                                                @ExtensionProperty(
                                                                                        name = "expect-status",
                                                                                        value = "400",
                                                                                        parseValue = true)))
                                            })),
            responses = {
                @ApiResponse(
                        responseCode = "200",
                        description = OpsRequests.DONE,
                        content =
                                @Content(
                                        mediaType = "application/json",
                                        schema = @Schema(implementation = OpsActionViews.ActionResult.class))),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW)
            },
            extensions = {
                @Extension(properties = @ExtensionProperty(name = "fixture", value = "parkedRow")),
                @Extension(
                        name = "console",
                        properties = {
                            @ExtensionProperty(name = "label", value = "Add note"),
                            @ExtensionProperty(name = "order", value = "4"),
                            @ExtensionProperty(name = "needs", value = "reason")
                        })
            })
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/note")
    public OpsActionViews.ActionResult note(
            @Parameter(description = OpsRequests.ROW_ID, schema = @Schema(type = "string", format = "uuid"))
                    @PathParam("id")
                    String id,
            OpsActionViews.ReasonRequest body,
            @Context ContainerRequestContext request) {
        return ops.note(OpsRequests.id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }
}
