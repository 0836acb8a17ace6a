package dev.outbox.api.orders;

import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.TimeOrderedIds;
import dev.outbox.api.orders.persistence.OrderRepository;
import dev.outbox.domain.InvalidInputException;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.domain.Violation;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.jdbc.OutboxMessages;
import dev.outbox.persistence.outbox.OutboxMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Currency;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.mybatis.guice.transactional.Transactional;

/**
 * The order use cases. Each write is one {@code @Transactional} method that changes the order
 * and inserts one outbox row per emitted event, explicitly, in the same transaction: both
 * commit, or neither does. Nothing here talks to the broker.
 *
 * <p>An order belongs to the tenant it was placed with ({@link MessageContext#tenantId()}, null
 * when the request named none, which is a tenant of its own). A request from any other tenant
 * finds no order: {@link OrderNotFoundException}, as for an id nobody used, so it learns nothing
 * and changes nothing. Events carry the order's tenant, never the asking request's.
 */
@Singleton
public class OrderService {
    private final OrderRepository orders;
    private final OutboxMapper outbox;
    private final Clock clock;

    @Inject
    public OrderService(OrderRepository orders, OutboxMapper outbox, Clock clock) {
        this.orders = orders;
        this.outbox = outbox;
        this.clock = clock;
    }

    @Transactional
    public Order place(PlaceOrderRequest request, MessageContext context) {
        if (request == null) {
            throw InvalidInputException.of("body", "is required");
        }
        List<Violation> violations = new ArrayList<>();
        Currency currency = null;
        try {
            currency = Money.currency(request.currency());
        } catch (IllegalArgumentException e) {
            violations.add(new Violation("currency", e.getMessage()));
        }
        List<OrderLine> lines = new ArrayList<>();
        // counted before any line is read: a body of thousands of lines costs one check, not
        // thousands of parsed prices and as many violations in the answer
        boolean tooMany = request.lines() != null && request.lines().size() > Order.MAX_LINES;
        if (tooMany) {
            violations.add(new Violation("lines", "must contain at most " + Order.MAX_LINES + " lines"));
        } else if (request.lines() != null && currency != null) {
            for (int i = 0; i < request.lines().size(); i++) {
                OrderLine line = line(i, request.lines().get(i), currency, violations);
                if (line != null) {
                    lines.add(line);
                }
            }
        }
        if (!violations.isEmpty()) {
            throw new InvalidInputException(violations);
        }
        Instant now = now();
        Order.Transition placed = Order.place(
                TimeOrderedIds.next(now.toEpochMilli()),
                request.customerId(),
                context.tenantId(),
                currency,
                request.lines() == null ? List.of() : lines,
                now);
        orders.insert(placed.order());
        record(placed, context);
        return placed.order();
    }

    @Transactional
    public Order capture(UUID orderId, CaptureRequest request, MessageContext context) {
        if (request == null || request.amount() == null) {
            throw InvalidInputException.of("amount", "is required");
        }
        Order order = orders.findForUpdate(orderId, context.tenantId())
                .orElseThrow(() -> new OrderNotFoundException(orderId));
        Money amount;
        try {
            amount = Money.parse(request.amount(), order.currency());
        } catch (IllegalArgumentException e) {
            throw InvalidInputException.of("amount", e.getMessage());
        }
        Instant now = now();
        Order.Transition captured = order.capture(amount, TimeOrderedIds.next(now.toEpochMilli()), now);
        orders.update(captured.order(), order.version());
        record(captured, context);
        return captured.order();
    }

    @Transactional
    public Order ship(UUID orderId, ShipRequest request, MessageContext context) {
        Order order = orders.findForUpdate(orderId, context.tenantId())
                .orElseThrow(() -> new OrderNotFoundException(orderId));
        Order.Transition shipped = order.ship(
                request == null ? null : request.carrier(), request == null ? null : request.trackingNumber(), now());
        orders.update(shipped.order(), order.version());
        record(shipped, context);
        return shipped.order();
    }

    @Transactional
    public Order cancel(UUID orderId, CancelRequest request, MessageContext context) {
        Order order = orders.findForUpdate(orderId, context.tenantId())
                .orElseThrow(() -> new OrderNotFoundException(orderId));
        Order.Transition cancelled = order.cancel(request == null ? null : request.reason(), now());
        orders.update(cancelled.order(), order.version());
        record(cancelled, context);
        return cancelled.order();
    }

    /** The order as {@code tenantId} may see it: empty for an unknown order and for another tenant's. */
    @Transactional
    public Optional<Order> find(UUID orderId, String tenantId) {
        return orders.find(orderId, tenantId);
    }

    /**
     * One outbox row per event, stamped with the order's tenant; a later event of the same
     * transition is caused by the one before.
     */
    private void record(Order.Transition transition, MessageContext context) {
        MessageContext own = context.withTenantId(transition.order().tenantId());
        MessageContext ctx = own;
        for (DomainEvent event : transition.events()) {
            NewOutboxMessage message = OutboxMessages.from(event, ctx, clock.millis());
            outbox.insert(message);
            ctx = own.withCausationId(message.id().toString());
        }
    }

    private static OrderLine line(int i, PlaceOrderRequest.Line line, Currency currency, List<Violation> violations) {
        String at = "lines[" + i + "]";
        if (line == null) {
            violations.add(new Violation(at, "is required"));
            return null;
        }
        boolean ok = true;
        if (line.sku() == null) {
            violations.add(new Violation(at + ".sku", "is required"));
            ok = false;
        }
        if (line.quantity() == null) {
            violations.add(new Violation(at + ".quantity", "is required"));
            ok = false;
        }
        Money price = null;
        if (line.unitPrice() == null) {
            violations.add(new Violation(at + ".unitPrice", "is required"));
            ok = false;
        } else {
            try {
                price = Money.parse(line.unitPrice(), currency);
            } catch (IllegalArgumentException e) {
                violations.add(new Violation(at + ".unitPrice", e.getMessage()));
                ok = false;
            }
        }
        return ok ? new OrderLine(line.sku(), line.quantity(), price) : null;
    }

    /** Microseconds: what PostgreSQL stores, so the snapshot and the row agree to the digit. */
    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
