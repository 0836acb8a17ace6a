package dev.outbox.api.ops;

import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.StorableValues;
import dev.outbox.domain.InvalidInputException;
import dev.outbox.domain.Violation;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.persistence.ops.BulkRetryFilter;
import dev.outbox.persistence.ops.OutboxQuery;
import dev.outbox.persistence.relay.RelayRegistry;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The operator API (see the README's "Operating it" and {@code ops/RUNBOOK.md}). Reads need a
 * token, repairs the operator token ({@link OpsAuthFilter}); every repair goes through
 * {@link OpsService}, which audits it. Only the POSTs declare what they consume: a GET takes no
 * body, and a class-wide {@code @Consumes} made Jersey refuse a GET naming a Content-Type with 415.
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

    @GET
    @Path("/outbox")
    public OpsViews.Page search(
            @QueryParam("status") String status,
            @QueryParam("messageType") String messageType,
            @QueryParam("aggregateType") String aggregateType,
            @QueryParam("aggregateId") String aggregateId,
            @QueryParam("correlationId") String correlationId,
            @QueryParam("tenantId") String tenantId,
            @QueryParam("errorCode") String errorCode,
            @QueryParam("createdFrom") String createdFrom,
            @QueryParam("createdTo") String createdTo,
            @QueryParam("limit") String limit,
            @QueryParam("after") String after,
            @Context ContainerRequestContext request) {
        List<Violation> errors = new ArrayList<>();
        String st = enumValue("status", status, OutboxStatus.class, errors);
        String code = enumValue("errorCode", errorCode, ErrorCode.class, errors);
        Instant from = instant("createdFrom", createdFrom, errors);
        Instant to = instant("createdTo", createdTo, errors);
        int size = integer("limit", limit, 50, 1, 500, errors);
        if (!errors.isEmpty()) {
            throw new InvalidInputException(errors);
        }
        Cursors.Position position = after == null || after.isBlank() ? null : Cursors.decode(after);
        OutboxQuery query = new OutboxQuery(
                st,
                blankToNull(messageType),
                blankToNull(aggregateType),
                blankToNull(aggregateId),
                blankToNull(correlationId),
                blankToNull(tenantId),
                code,
                from,
                to,
                position == null ? null : position.createdAt(),
                position == null ? null : position.id(),
                size + 1);
        return ops.search(query, OpsPrincipal.of(request).canWrite());
    }

    @GET
    @Path("/outbox/stats")
    public OpsViews.Stats stats() {
        return ops.stats();
    }

    @GET
    @Path("/outbox/reconcile")
    public OpsViews.Reconcile reconcile() {
        return ops.reconcile();
    }

    @GET
    @Path("/outbox/{id}")
    public OpsViews.Row detail(@PathParam("id") String id, @Context ContainerRequestContext request) {
        UUID messageId = id(id);
        return ops.detail(messageId, OpsPrincipal.of(request).canWrite())
                .orElseThrow(() -> ApiException.notFound("message " + messageId));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/retry")
    public OpsViews.ActionResult retry(
            @PathParam("id") String id, OpsViews.ReasonRequest body, @Context ContainerRequestContext request) {
        return ops.retry(id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/retry")
    public OpsViews.BulkRetryResult bulkRetry(
            OpsViews.BulkRetryRequest body, @Context ContainerRequestContext request) {
        if (body == null) {
            throw InvalidInputException.of("body", "is required");
        }
        List<Violation> errors = new ArrayList<>();
        String status = enumValue("status", present(body.status(), "status", errors), OutboxStatus.class, errors);
        if (status != null && !status.equals("PARKED") && !status.equals("RETRYABLE_FAILED")) {
            errors.add(new Violation("status", "must be PARKED or RETRYABLE_FAILED"));
        }
        String code = enumValue("errorCode", present(body.errorCode(), "errorCode", errors), ErrorCode.class, errors);
        if (code == null
                && blankToNull(body.messageType()) == null
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
                status, code, blankToNull(body.messageType()), body.createdFrom(), body.createdTo());
        return ops.bulkRetry(
                filter, Boolean.TRUE.equals(body.dryRun()), limit, OpsPrincipal.of(request), body.reason());
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/cancel")
    public OpsViews.ActionResult cancel(
            @PathParam("id") String id, OpsViews.ReasonRequest body, @Context ContainerRequestContext request) {
        return ops.cancel(id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/replay")
    public OpsViews.ActionResult replay(
            @PathParam("id") String id, OpsViews.ReasonRequest body, @Context ContainerRequestContext request) {
        return ops.replay(id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/replay-aggregate")
    public OpsViews.ActionResult replayAggregate(
            OpsViews.ReplayAggregateRequest body, @Context ContainerRequestContext request) {
        if (body == null) {
            throw InvalidInputException.of("body", "is required");
        }
        return ops.replayAggregate(
                blankToNull(body.aggregateType()),
                blankToNull(body.aggregateId()),
                OpsPrincipal.of(request),
                body.reason());
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/outbox/{id}/release")
    public OpsViews.ActionResult release(
            @PathParam("id") String id, OpsViews.ReasonRequest body, @Context ContainerRequestContext request) {
        return ops.releaseLease(id(id), OpsPrincipal.of(request), body == null ? null : body.reason());
    }

    /**
     * Who the presented token is. The console shows action controls only to the operator token;
     * the read-only token would be refused by every action anyway.
     */
    @GET
    @Path("/session")
    public OpsViews.Session session(@Context ContainerRequestContext request) {
        OpsPrincipal p = OpsPrincipal.of(request);
        return new OpsViews.Session(p.role().label(), p.canWrite(), p.actor());
    }

    /** Every registered relay: alive while it holds its liveness lock (V7), and the rows it holds. */
    @GET
    @Path("/relays")
    public OpsViews.Relays relays() {
        return OpsViews.Relays.of(relays.list());
    }

    @GET
    @Path("/audit")
    public OpsViews.AuditPage audit(
            @QueryParam("messageId") String messageId,
            @QueryParam("limit") String limit,
            @QueryParam("after") String after) {
        List<Violation> errors = new ArrayList<>();
        int size = integer("limit", limit, 50, 1, 500, errors);
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
        return ops.audit(before, messageId == null || messageId.isBlank() ? null : id(messageId), size);
    }

    private static UUID id(String id) {
        try {
            UUID parsed = UUID.fromString(id);
            if (parsed.toString().equalsIgnoreCase(id)) {
                return parsed;
            }
        } catch (IllegalArgumentException e) {
            // fall through
        }
        throw ApiException.badRequest("invalid_id", "a message id is a UUID");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    /**
     * A JSON field is absent when missing or null; one that is there must say something. (A query
     * parameter left blank is absent: that is how forms send an unset filter.)
     */
    private static String present(String value, String field, List<Violation> errors) {
        if (value != null && value.isBlank()) {
            errors.add(new Violation(field, "must not be blank; leave it out or set it to null"));
        }
        return value;
    }

    private static <E extends Enum<E>> String enumValue(
            String field, String value, Class<E> type, List<Violation> errors) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Enum.valueOf(type, value.trim()).name();
        } catch (IllegalArgumentException e) {
            List<String> names = new ArrayList<>();
            for (E c : type.getEnumConstants()) {
                names.add(c.name());
            }
            errors.add(new Violation(field, "must be one of " + String.join(", ", names)));
            return null;
        }
    }

    private static Instant instant(String field, String value, List<Violation> errors) {
        if (value == null || value.isBlank()) {
            return null;
        }
        Instant parsed;
        try {
            parsed = OffsetDateTime.parse(value.trim()).toInstant();
        } catch (DateTimeParseException e) {
            errors.add(new Violation(field, "must be an ISO-8601 instant such as 2026-11-30T09:00:00Z"));
            return null;
        }
        String defect = StorableValues.instantDefect(parsed);
        if (defect != null) {
            errors.add(new Violation(field, defect));
            return null;
        }
        return parsed;
    }

    private static int integer(String field, String value, int dflt, int min, int max, List<Violation> errors) {
        if (value == null || value.isBlank()) {
            return dflt;
        }
        try {
            int v = Integer.parseInt(value.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        errors.add(new Violation(field, "must be an integer between " + min + " and " + max));
        return dflt;
    }
}
