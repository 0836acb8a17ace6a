package dev.outbox.api.ops;

import dev.outbox.api.docs.Example;
import dev.outbox.ops.views.OpsActionViews;
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

/**
 * The registry's door for a service that runs none of the outbox's code (a process in another
 * language, say): what {@code OutboxPersistence.register} writes at a Java service's start, sent
 * over HTTP instead, by {@code outboxctl register}. Operator token only ({@link OpsAuthFilter});
 * the documents are checked as a process checks its own files ({@link RegistryRequests}), then
 * {@link OpsService} writes and audits them in one transaction.
 */
@Path("/ops")
@Produces(MediaType.APPLICATION_JSON)
public final class OpsRegistryResource {
    /** A contract file and a queue file of a stock service, whole: the documented request. */
    private static final String STOCK = "{\"contracts\":[{\"messageType\":\"stock.counted\",\"version\":1,"
            + "\"document\":{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
            + "\"$id\":\"urn:outbox:contract:stock.counted:v1\",\"x-outbox\":{\"exchange\":\"stock.events\","
            + "\"aggregateType\":\"item\",\"aggregateIdProperty\":\"itemId\",\"ordered\":true},\"type\":\"object\","
            + "\"required\":[\"itemId\",\"count\"],\"properties\":{\"itemId\":{\"type\":\"string\"},"
            + "\"count\":{\"type\":\"integer\",\"minimum\":0}}}}],\"queues\":[{\"queue\":\"stock.counts\","
            + "\"consumer\":\"stock-report\",\"bindings\":[{\"exchange\":\"stock.events\","
            + "\"routingKeys\":\"contracts\"}]}],\"reason\":\"stock service 4.2\"}";

    private final OpsService ops;

    @Inject
    public OpsRegistryResource(OpsService ops) {
        this.ops = ops;
    }

    @Operation(
            operationId = "register",
            tags = "ops",
            summary = "Register a service's message contracts and queues",
            description = "For a service that runs none of the outbox's code: its contract files"
                    + " (contracts/<type>/v<version>.schema.json) and queue files (topology/<queue>.queue.json),"
                    + " each document whole, checked as a process checks the files on its classpath and written in"
                    + " one transaction with its audit entry. A registered contract never changes: the same document"
                    + " again is unchanged, a different one is 409. A queue declared differently replaces the last"
                    + " declaration.",
            responses = {
                @ApiResponse(responseCode = "200", description = OpsRequests.DONE),
                @ApiResponse(responseCode = "400", description = RegistryRequests.INVALID),
                @ApiResponse(responseCode = "409", description = RegistryRequests.CONFLICT)
            })
    @Example(name = "valid", summary = "A contract and a queue", body = STOCK, status = 200)
    @Example(
            name = "changedSchema",
            summary = "The same type and version with another schema, after the valid example",
            body = "{\"contracts\":[{\"messageType\":\"stock.counted\",\"version\":1,\"document\":{\"$schema\":"
                    + "\"http://json-schema.org/draft-07/schema#\",\"$id\":\"urn:outbox:contract:stock.counted:v1\","
                    + "\"x-outbox\":{\"exchange\":\"stock.events\",\"aggregateType\":\"item\",\"aggregateIdProperty\":"
                    + "\"itemId\",\"ordered\":true},\"type\":\"object\",\"required\":[\"itemId\"],\"properties\":"
                    + "{\"itemId\":{\"type\":\"string\"},\"count\":{\"type\":\"number\"}}}}],\"queues\":[]}",
            status = 409)
    @Example(
            name = "copiedId",
            summary = "A contract whose $id names another version",
            body = "{\"contracts\":[{\"messageType\":\"stock.counted\",\"version\":2,\"document\":{\"$schema\":"
                    + "\"http://json-schema.org/draft-07/schema#\",\"$id\":\"urn:outbox:contract:stock.counted:v1\","
                    + "\"x-outbox\":{\"exchange\":\"stock.events\",\"aggregateType\":\"item\",\"aggregateIdProperty\":"
                    + "\"itemId\",\"ordered\":true},\"type\":\"object\",\"required\":[\"itemId\"]}}],\"queues\":[]}",
            status = 400)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/registry")
    public OpsActionViews.RegisterResult register(
            @RequestBody(required = true) OpsActionViews.RegisterRequest body,
            @Context ContainerRequestContext request) {
        OpsPrincipal who = OpsPrincipal.of(request);
        RegistryRequests.Registration registration = RegistryRequests.read(body, who.actor());
        return ops.register(registration.contracts(), registration.queues(), who, body.reason());
    }
}
