package dev.outbox.api.orders;

import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.RequestMetadata;
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
import java.net.URI;
import java.util.UUID;

/**
 * The public order API. Thin: parse, call the application service, shape the response. A
 * {@code 201}/{@code 200} means "committed locally" (the order and its outbox rows), never
 * "downstream has processed it".
 */
@Path("/orders")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public final class OrderResource {
    private final OrderService orders;

    @Inject
    public OrderResource(OrderService orders) {
        this.orders = orders;
    }

    @POST
    public Response place(PlaceOrderRequest body, @Context ContainerRequestContext request) {
        OrderResponse order = OrderResponse.of(orders.place(body, RequestMetadata.of(request).messageContext()));
        return Response.created(URI.create("/orders/" + order.id())).entity(order).build();
    }

    @GET
    @Path("/{id}")
    public OrderResponse get(@PathParam("id") String id) {
        UUID orderId = parseId(id);
        return orders.find(orderId).map(OrderResponse::of).orElseThrow(() -> notFound(orderId));
    }

    @POST
    @Path("/{id}/capture")
    public OrderResponse capture(@PathParam("id") String id, CaptureRequest body,
            @Context ContainerRequestContext request) {
        UUID orderId = parseId(id);
        try {
            return OrderResponse.of(orders.capture(orderId, body, RequestMetadata.of(request).messageContext()));
        } catch (OrderNotFoundException e) {
            throw notFound(orderId);
        }
    }

    @POST
    @Path("/{id}/cancel")
    public OrderResponse cancel(@PathParam("id") String id, CancelRequest body,
            @Context ContainerRequestContext request) {
        UUID orderId = parseId(id);
        try {
            return OrderResponse.of(orders.cancel(orderId, body, RequestMetadata.of(request).messageContext()));
        } catch (OrderNotFoundException e) {
            throw notFound(orderId);
        }
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
        throw ApiException.badRequest("invalid_id", "order id must be a UUID such as 0192f3a4-1c2d-7e4f-8a9b-0c1d2e3f4a5b");
    }
}
