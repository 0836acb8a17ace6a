package dev.outbox.api.ops;

import dev.outbox.api.docs.Example;
import dev.outbox.api.docs.Fixture;
import dev.outbox.domain.InvalidInputException;
import dev.outbox.domain.Violation;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.ops.views.OpsActionViews;
import dev.outbox.persistence.ops.BulkRetryFilter;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;

/**
 * The operator API's repairs of many rows at once: retry every row a filter matches (with a dry
 * run to count first), replay every version of one aggregate. Operator token only; audited.
 */
@Path("/ops")
@Produces(MediaType.APPLICATION_JSON)
public final class OpsBulkResource {
    /** The statuses a bulk retry may take rows from. */
    private static final List<String> RETRYABLE =
            List.of(OutboxStatus.PARKED.name(), OutboxStatus.RETRYABLE_FAILED.name());

    private final OpsService ops;

    @Inject
    public OpsBulkResource(OpsService ops) {
        this.ops = ops;
    }

    @Operation(
            operationId = "bulkRetry",
            tags = "ops",
            summary = "Retry every PARKED/RETRYABLE_FAILED row matching a filter",
            responses = {
                @ApiResponse(responseCode = "200", description = OpsRequests.DONE),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            })
    @Fixture("parkedRow")
    @Example(
            name = "dryRun",
            summary = "Count first",
            body = "{\"errorCode\":\"UNROUTABLE\",\"dryRun\":true}",
            status = 200)
    @Example(
            name = "valid",
            summary = "Then retry",
            body = "{\"errorCode\":\"UNROUTABLE\",\"reason\":\"binding added\"}",
            status = 200)
    @Example(name = "noFilter", summary = "No filter", body = "{\"reason\":\"everything\"}", status = 400)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/retry")
    public OpsActionViews.BulkRetryResult bulkRetry(
            @RequestBody(required = true) OpsActionViews.BulkRetryRequest body,
            @Context ContainerRequestContext request) {
        if (body == null) {
            throw InvalidInputException.of("body", "is required");
        }
        List<Violation> errors = new ArrayList<>();
        // status picks which rows change, and a retry changes them: only the two failed statuses this
        // version knows and can retry, never a status it does not know (a newer version's row is its own)
        String status = OpsRequests.blankToNull(OpsRequests.present(body.status(), "status", errors));
        if (status != null && !RETRYABLE.contains(status)) {
            errors.add(new Violation("status", "must be PARKED or RETRYABLE_FAILED"));
        }
        // errorCode only narrows the failed rows: a code a newer version wrote is matched, never written
        String code = OpsRequests.errorCodeFilter(
                "errorCode", OpsRequests.present(body.errorCode(), "errorCode", errors), errors);
        if (code == null
                && OpsRequests.blankToNull(body.messageType()) == null
                && body.createdFrom() == null
                && body.createdTo() == null) {
            errors.add(new Violation("filter", "name at least one of errorCode, messageType, createdFrom, createdTo"));
        }
        int limit = body.limit() == null ? 500 : body.limit();
        if (limit < 1 || limit > OpsService.MAX_BULK) {
            errors.add(new Violation("limit", "must be between 1 and " + OpsService.MAX_BULK));
        }
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        BulkRetryFilter filter = new BulkRetryFilter(
                status, code, OpsRequests.blankToNull(body.messageType()), body.createdFrom(), body.createdTo());
        return ops.bulkRetry(
                filter, Boolean.TRUE.equals(body.dryRun()), limit, OpsPrincipal.of(request), body.reason());
    }

    @Operation(
            operationId = "replayAggregate",
            tags = "ops",
            summary = "Publish every PUBLISHED row of one aggregate again, in version order",
            responses = {
                @ApiResponse(responseCode = "200", description = OpsRequests.DONE),
                @ApiResponse(responseCode = "404", description = OpsRequests.NO_SUCH_ROW),
                @ApiResponse(responseCode = "409", description = OpsRequests.INVALID_STATE)
            })
    @Fixture("publishedRow")
    @Example(
            name = "valid",
            summary = "One aggregate",
            body =
                    "{\"aggregateType\":\"order\",\"aggregateId\":\"{fixture.aggregateId}\",\"reason\":\"rebuild projection\"}",
            status = 200)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/replay-aggregate")
    public OpsActionViews.ActionResult replayAggregate(
            @RequestBody(required = true) OpsActionViews.ReplayAggregateRequest body,
            @Context ContainerRequestContext request) {
        if (body == null) {
            throw InvalidInputException.of("body", "is required");
        }
        return ops.replayAggregate(
                OpsRequests.blankToNull(body.aggregateType()),
                OpsRequests.blankToNull(body.aggregateId()),
                OpsPrincipal.of(request),
                body.reason());
    }
}
