package dev.outbox.api.orders;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.outbox.MessageContext;
import dev.outbox.api.docs.Answers;
import dev.outbox.api.docs.Example;
import dev.outbox.api.docs.Fixture;
import dev.outbox.api.docs.Returns;
import dev.outbox.api.http.ApiException;
import dev.outbox.api.http.JsonConfig;
import dev.outbox.api.http.RequestMetadata;
import dev.outbox.api.idempotency.IdempotencyRequest;
import dev.outbox.api.idempotency.IdempotentExecutor;
import dev.outbox.api.idempotency.StoredResponse;
import dev.outbox.domain.Order;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
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
    private static final String AFTER_TRANSITION = "The order after the transition.";
    private final OrderService orders;
    private final IdempotentExecutor idempotent;
    private final JsonConfig json;

    @Inject
    public OrderResource(OrderService orders, IdempotentExecutor idempotent, JsonConfig json) {
        this.orders = orders;
        this.idempotent = idempotent;
        this.json = json;
    }

    @Operation(
            operationId = "placeOrder",
            tags = "orders",
            summary = "Place an order",
            description = "Writes the order and its order.created outbox row in one transaction.",
            responses = {
                @ApiResponse(responseCode = "201", description = "Placed."),
                @ApiResponse(
                        responseCode = "422",
                        description =
                                "idempotency_key_reused, or a business rule (capture_amount_mismatch, capture_currency_mismatch).")
            })
    @Returns(OrderResponse.class)
    @Example(
            name = "valid",
            summary = "A valid order",
            body =
                    "{\"customerId\":\"customer-42\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"BOOK-1\",\"quantity\":2,\"unitPrice\":\"12.50\"}]}",
            status = 201)
    @Example(
            name = "noLines",
            summary = "No lines",
            body = "{\"customerId\":\"customer-42\",\"currency\":\"EUR\",\"lines\":[]}",
            status = 400)
    @Example(
            name = "badCurrency",
            summary = "Not a currency",
            body =
                    "{\"customerId\":\"customer-42\",\"currency\":\"euro\",\"lines\":[{\"sku\":\"BOOK-1\",\"quantity\":2,\"unitPrice\":\"12.50\"}]}",
            status = 400)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response place(
            @RequestBody(required = true) PlaceOrderRequest body, @Context ContainerRequestContext request)
            throws Exception {
        RequestMetadata metadata = RequestMetadata.of(request);
        return idempotent
                .execute(IdempotencyRequest.of(request), () -> {
                    Order order = orders.place(body, metadata.messageContext());
                    return StoredResponse.of(201, write(order), "/orders/" + order.id());
                })
                .toResponse();
    }

    @Operation(
            operationId = "getOrder",
            tags = "orders",
            summary = "Read an order",
            responses = {
                @ApiResponse(responseCode = "200", description = "The order."),
                @ApiResponse(responseCode = "404", description = "not_found: no such order, or another tenant's.")
            })
    @Fixture("placedOrder")
    @GET
    @Path("/{id}")
    public OrderResponse get(
            @Parameter(ref = "#/components/parameters/OrderId") @PathParam("id") String id,
            @Context ContainerRequestContext request) {
        UUID orderId = parseId(id);
        return orders.find(orderId, RequestMetadata.of(request).tenantId())
                .map(OrderResponse::of)
                .orElseThrow(() -> notFound(orderId));
    }

    @Operation(
            operationId = "captureOrder",
            tags = "orders",
            summary = "Capture the payment",
            description = "Emits payment.captured in the same transaction. Idempotent per Idempotency-Key.",
            responses = {@ApiResponse(responseCode = "200", description = AFTER_TRANSITION)})
    @Returns(OrderResponse.class)
    @Fixture("placedOrder")
    @Example(name = "valid", summary = "The order total", body = "{\"amount\":\"25.00\"}", status = 200)
    @Example(name = "wrongAmount", summary = "Not the total", body = "{\"amount\":\"24.99\"}", status = 422)
    @Example(name = "missing", summary = "No amount", body = "{}", status = 400)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/{id}/capture")
    @Answers(Answers.Shared.ORDER_TRANSITION)
    public Response capture(
            @Parameter(ref = "#/components/parameters/OrderId") @PathParam("id") String id,
            @RequestBody(required = true) CaptureRequest body,
            @Context ContainerRequestContext request)
            throws Exception {
        return transition(id, request, (orderId, context) -> orders.capture(orderId, body, context));
    }

    @Operation(
            operationId = "shipOrder",
            tags = "orders",
            summary = "Ship a captured order",
            description = "Emits order.shipped in the same transaction. Idempotent per Idempotency-Key.",
            responses = {@ApiResponse(responseCode = "200", description = AFTER_TRANSITION)})
    @Returns(OrderResponse.class)
    @Fixture("capturedOrder")
    @Example(
            name = "valid",
            summary = "Carrier and tracking number",
            body = "{\"carrier\":\"DHL\",\"trackingNumber\":\"JJD000390007983\"}",
            status = 200)
    @Example(name = "missing", summary = "No carrier", body = "{\"trackingNumber\":\"JJD000390007983\"}", status = 400)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/{id}/ship")
    @Answers(Answers.Shared.ORDER_TRANSITION)
    public Response ship(
            @Parameter(ref = "#/components/parameters/OrderId") @PathParam("id") String id,
            @RequestBody(required = true) ShipRequest body,
            @Context ContainerRequestContext request)
            throws Exception {
        return transition(id, request, (orderId, context) -> orders.ship(orderId, body, context));
    }

    @Operation(
            operationId = "cancelOrder",
            tags = "orders",
            summary = "Cancel an order",
            description =
                    "Emits order.cancelled (and payment.refunded when it was captured) in the same transaction. Idempotent per Idempotency-Key.",
            responses = {@ApiResponse(responseCode = "200", description = AFTER_TRANSITION)})
    @Returns(OrderResponse.class)
    @Fixture("capturedOrder")
    @Example(
            name = "valid",
            summary = "With a reason",
            body = "{\"reason\":\"customer changed their mind\"}",
            status = 200)
    @Example(name = "missing", summary = "No reason", body = "{}", status = 400)
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Path("/{id}/cancel")
    @Answers(Answers.Shared.ORDER_TRANSITION)
    public Response cancel(
            @Parameter(ref = "#/components/parameters/OrderId") @PathParam("id") String id,
            @RequestBody(required = true) CancelRequest body,
            @Context ContainerRequestContext request)
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
