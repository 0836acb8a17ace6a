package dev.outbox.api.orders;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.outbox.MessageContext;
import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.JsonConfig;
import dev.outbox.api.http.RequestMetadata;
import dev.outbox.api.idempotency.IdempotencyRequest;
import dev.outbox.api.idempotency.IdempotentExecutor;
import dev.outbox.api.idempotency.StoredResponse;
import dev.outbox.domain.Order;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.UUID;

/**
 * The public order API. Thin: parse, call the application service, shape the response. A
 * {@code 201}/{@code 200} means "committed locally" (the order and its outbox rows), never
 * "downstream has processed it". Every POST honours {@code Idempotency-Key}: the response is
 * built and stored inside the write's transaction, so a retry gets it back byte for byte. Only
 * the POSTs declare what they consume: a GET takes no body, whatever Content-Type it names.
 */
@Path("/orders")
@Produces(MediaType.APPLICATION_JSON)
public final class OrderResource {
    private final OrderService orders;
    private final IdempotentExecutor idempotent;
    private final JsonConfig json;

    @Inject
    public OrderResource(OrderService orders, IdempotentExecutor idempotent, JsonConfig json) {
        this.orders = orders;
        this.idempotent = idempotent;
        this.json = json;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response place(PlaceOrderRequest body, @Context ContainerRequestContext request) throws Exception {
        RequestMetadata metadata = RequestMetadata.of(request);
        return idempotent
                .execute(IdempotencyRequest.of(request), () -> {
                    Order order = orders.place(body, metadata.messageContext());
                    return StoredResponse.of(201, write(order), "/orders/" + order.id());
                })
                .toResponse();
    }

    @GET
    @Path("/{id}")
    public OrderResponse get(@PathParam("id") String id, @Context ContainerRequestContext request) {
        UUID orderId = parseId(id);
        return orders.find(orderId, RequestMetadata.of(request).tenantId())
                .map(OrderResponse::of)
                .orElseThrow(() -> notFound(orderId));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/{id}/capture")
    public Response capture(@PathParam("id") String id, CaptureRequest body, @Context ContainerRequestContext request)
            throws Exception {
        return transition(id, request, (orderId, context) -> orders.capture(orderId, body, context));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/{id}/ship")
    public Response ship(@PathParam("id") String id, ShipRequest body, @Context ContainerRequestContext request)
            throws Exception {
        return transition(id, request, (orderId, context) -> orders.ship(orderId, body, context));
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/{id}/cancel")
    public Response cancel(@PathParam("id") String id, CancelRequest body, @Context ContainerRequestContext request)
            throws Exception {
        return transition(id, request, (orderId, context) -> orders.cancel(orderId, body, context));
    }

    /**
     * A state change of one order: idempotent per Idempotency-Key (keys live per tenant), 404 when
     * the order is unknown or another tenant's; a refused request stores no key.
     */
    private Response transition(String id, ContainerRequestContext request, Transition change) throws Exception {
        UUID orderId = parseId(id);
        MessageContext context = RequestMetadata.of(request).messageContext();
        try {
            return idempotent
                    .execute(
                            IdempotencyRequest.of(request),
                            () -> StoredResponse.of(200, write(change.apply(orderId, context)), null))
                    .toResponse();
        } catch (OrderNotFoundException e) {
            throw notFound(orderId);
        }
    }

    @FunctionalInterface
    private interface Transition {
        Order apply(UUID orderId, MessageContext context);
    }

    private String write(Order order) throws JsonProcessingException {
        return json.mapper().writeValueAsString(OrderResponse.of(order));
    }

    private static ApiException notFound(UUID id) {
        return ApiException.notFound("order " + id);
    }

    static UUID parseId(String id) {
        try {
            UUID parsed = UUID.fromString(id);
            if (parsed.toString().equalsIgnoreCase(id)) {
                return parsed;
            }
        } catch (IllegalArgumentException e) {
            // fall through to the client error
        }
        throw ApiException.badRequest(
                "invalid_id", "order id must be a UUID such as 0192f3a4-1c2d-7e4f-8a9b-0c1d2e3f4a5b");
    }
}
