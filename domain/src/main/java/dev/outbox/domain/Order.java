package dev.outbox.domain;

import dev.outbox.DomainEvent;
import dev.outbox.domain.event.OrderCancelled;
import dev.outbox.domain.event.OrderCreated;
import dev.outbox.domain.event.OrderShipped;
import dev.outbox.domain.event.PaymentCaptured;
import dev.outbox.domain.event.PaymentRefunded;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Currency;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The order aggregate. Immutable: every command returns a {@link Transition} holding the next
 * state and the events it emitted. Each event bumps {@link #version()} by one, and the event
 * carries that version as its {@code aggregateVersion}, so versions of one order are gapless and
 * the outbox can publish them in order.
 *
 * <pre>
 *   place ──► PLACED ──capture──► CAPTURED ──ship──► SHIPPED
 *               │                    │
 *             cancel               cancel (+ refund)
 *               ▼                    ▼
 *           CANCELLED ◄──────────────┘
 * </pre>
 */
public final class Order {
    public static final int MAX_LINES = 100;
    public static final int MAX_CUSTOMER_ID_LENGTH = 128;
    public static final int MAX_REASON_LENGTH = 500;
    public static final int MAX_SHIPPING_FIELD_LENGTH = 100;
    private static final Pattern SKU = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    private final UUID id;
    private final String customerId;
    private final String tenantId;
    private final OrderStatus status;
    private final long version;
    private final Currency currency;
    private final List<OrderLine> lines;
    private final Money total;
    private final UUID paymentId;
    private final String cancelReason;
    private final Instant createdAt;
    private final Instant updatedAt;

    /**
     * Rebuilds an order from storage; no rules are re-checked beyond basic consistency, which every
     * order keeps. New orders come from {@link #place}, later states from its commands.
     *
     * @throws IllegalStateException when the version is below 1, or a captured or shipped order
     *     has no payment id
     */
    public Order(
            UUID id,
            String customerId,
            String tenantId,
            OrderStatus status,
            long version,
            Currency currency,
            List<OrderLine> lines,
            Money total,
            UUID paymentId,
            String cancelReason,
            Instant createdAt,
            Instant updatedAt) {
        if (version < 1) {
            throw new IllegalStateException("order " + id + " has version " + version);
        }
        if ((status == OrderStatus.CAPTURED || status == OrderStatus.SHIPPED) && paymentId == null) {
            throw new IllegalStateException(status + " order " + id + " has no payment id");
        }
        this.id = Objects.requireNonNull(id, "id");
        this.customerId = Objects.requireNonNull(customerId, "customerId");
        this.tenantId = tenantId;
        this.status = Objects.requireNonNull(status, "status");
        this.version = version;
        this.currency = Objects.requireNonNull(currency, "currency");
        this.lines = List.copyOf(lines);
        this.total = Objects.requireNonNull(total, "total");
        this.paymentId = paymentId;
        this.cancelReason = cancelReason;
        this.createdAt = Objects.requireNonNull(createdAt, "createdAt");
        this.updatedAt = Objects.requireNonNull(updatedAt, "updatedAt");
    }

    /** The result of a command: the new state and what happened, in order. */
    public record Transition(Order order, List<DomainEvent> events) {
        public Transition {
            events = List.copyOf(events);
        }
    }

    /**
     * Places a new order, validating every field and reporting every broken rule at once.
     *
     * @throws InvalidInputException when any input is invalid; nothing is created
     */
    public static Transition place(
            UUID id, String customerId, String tenantId, Currency currency, List<OrderLine> lines, Instant now) {
        List<Violation> violations = new ArrayList<>();
        if (customerId == null || customerId.isBlank()) {
            violations.add(new Violation("customerId", "is required"));
        } else if (customerId.length() > MAX_CUSTOMER_ID_LENGTH) {
            violations.add(new Violation("customerId", "must be at most " + MAX_CUSTOMER_ID_LENGTH + " characters"));
        }
        if (lines == null || lines.isEmpty()) {
            violations.add(new Violation("lines", "must contain at least one line"));
        } else if (lines.size() > MAX_LINES) {
            violations.add(new Violation("lines", "must contain at most " + MAX_LINES + " lines"));
        } else {
            for (int i = 0; i < lines.size(); i++) {
                validateLine(i, lines.get(i), currency, violations);
            }
        }
        Money total = null;
        if (violations.isEmpty()) {
            total = Money.zero(currency);
            for (OrderLine line : lines) {
                total = total.plus(line.lineTotal());
            }
            if (!total.isPositive()) {
                violations.add(new Violation("lines", "order total must be greater than zero"));
            }
        }
        if (!violations.isEmpty()) {
            throw new InvalidInputException(violations);
        }
        Order order = new Order(
                id, customerId, tenantId, OrderStatus.PLACED, 1, currency, lines, total, null, null, now, now);
        return new Transition(
                order,
                List.of(new OrderCreated(
                        id,
                        order.version,
                        now,
                        customerId,
                        tenantId,
                        currency.getCurrencyCode(),
                        total.toDecimalString(),
                        OrderCreated.lines(order.lines))));
    }

    private static void validateLine(int index, OrderLine line, Currency currency, List<Violation> violations) {
        String at = "lines[" + index + "]";
        if (line == null) {
            violations.add(new Violation(at, "is required"));
            return;
        }
        if (!SKU.matcher(line.sku()).matches()) {
            violations.add(new Violation(
                    at + ".sku",
                    "must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit"));
        }
        if (line.quantity() < 1 || line.quantity() > OrderLine.MAX_QUANTITY) {
            violations.add(new Violation(at + ".quantity", "must be between 1 and " + OrderLine.MAX_QUANTITY));
        }
        if (!line.unitPrice().currency().equals(currency)) {
            violations.add(new Violation(at + ".unitPrice", "must be in the order currency " + currency));
        } else if (line.unitPrice().isNegative()) {
            violations.add(new Violation(at + ".unitPrice", "must not be negative"));
        }
    }

    /**
     * Captures payment for the whole order.
     *
     * @throws IllegalTransitionException unless the order is {@link OrderStatus#PLACED}
     * @throws BusinessRuleException when the amount is not exactly the order total
     */
    public Transition capture(Money amount, UUID newPaymentId, Instant now) {
        Objects.requireNonNull(amount, "amount");
        Objects.requireNonNull(newPaymentId, "newPaymentId");
        if (status != OrderStatus.PLACED) {
            throw new IllegalTransitionException(status, "capture");
        }
        if (!amount.currency().equals(currency)) {
            throw new BusinessRuleException(
                    "capture_currency_mismatch",
                    "capture currency " + amount.currency() + " differs from order currency " + currency);
        }
        if (!amount.equals(total)) {
            throw new BusinessRuleException(
                    "capture_amount_mismatch",
                    "capture amount " + amount.toDecimalString() + " must equal the order total "
                            + total.toDecimalString());
        }
        Order next = with(OrderStatus.CAPTURED, version + 1, newPaymentId, null, now);
        return new Transition(
                next,
                List.of(new PaymentCaptured(
                        id, next.version, now, newPaymentId, total.toDecimalString(), currency.getCurrencyCode())));
    }

    /**
     * Hands the captured order to a carrier.
     *
     * @throws InvalidInputException when the carrier or tracking number is missing or too long
     * @throws IllegalTransitionException unless the order is {@link OrderStatus#CAPTURED}
     */
    public Transition ship(String carrier, String trackingNumber, Instant now) {
        List<Violation> violations = new ArrayList<>();
        requireShippingField("carrier", carrier, violations);
        requireShippingField("trackingNumber", trackingNumber, violations);
        if (!violations.isEmpty()) {
            throw new InvalidInputException(violations);
        }
        if (status != OrderStatus.CAPTURED) {
            throw new IllegalTransitionException(status, "ship");
        }
        Order next = with(OrderStatus.SHIPPED, version + 1, paymentId, null, now);
        return new Transition(
                next, List.of(new OrderShipped(id, next.version, now, carrier.strip(), trackingNumber.strip())));
    }

    private static void requireShippingField(String field, String value, List<Violation> violations) {
        if (value == null || value.isBlank()) {
            violations.add(new Violation(field, "is required"));
        } else if (value.strip().length() > MAX_SHIPPING_FIELD_LENGTH) {
            violations.add(new Violation(field, "must be at most " + MAX_SHIPPING_FIELD_LENGTH + " characters"));
        }
    }

    /**
     * Cancels the order. A captured order is refunded in full, in the same transition: the
     * {@code order.cancelled} event comes first, then {@code payment.refunded}.
     *
     * @throws InvalidInputException when the reason is missing or too long
     * @throws IllegalTransitionException when the order is already cancelled or has shipped
     */
    public Transition cancel(String reason, Instant now) {
        if (reason == null || reason.isBlank()) {
            throw InvalidInputException.of("reason", "is required");
        }
        if (reason.length() > MAX_REASON_LENGTH) {
            throw InvalidInputException.of("reason", "must be at most " + MAX_REASON_LENGTH + " characters");
        }
        if (status == OrderStatus.CANCELLED || status == OrderStatus.SHIPPED) {
            throw new IllegalTransitionException(status, "cancel");
        }
        List<DomainEvent> events = new ArrayList<>(2);
        Order next = with(OrderStatus.CANCELLED, version + 1, paymentId, reason, now);
        events.add(new OrderCancelled(id, next.version, now, reason, status));
        if (status == OrderStatus.CAPTURED) {
            next = with(OrderStatus.CANCELLED, version + 2, paymentId, reason, now);
            events.add(new PaymentRefunded(
                    id, next.version, now, paymentId, total.toDecimalString(), currency.getCurrencyCode()));
        }
        return new Transition(next, events);
    }

    /** This order in a later state: what was placed stays, the lifecycle moves on. */
    private Order with(OrderStatus status, long version, UUID paymentId, String cancelReason, Instant now) {
        return new Order(
                id,
                customerId,
                tenantId,
                status,
                version,
                currency,
                lines,
                total,
                paymentId,
                cancelReason,
                createdAt,
                now);
    }

    public UUID id() {
        return id;
    }

    public String customerId() {
        return customerId;
    }

    /** Null when the order was placed without a tenant. */
    public String tenantId() {
        return tenantId;
    }

    public OrderStatus status() {
        return status;
    }

    public long version() {
        return version;
    }

    public Currency currency() {
        return currency;
    }

    public List<OrderLine> lines() {
        return lines;
    }

    public Money total() {
        return total;
    }

    /** The captured payment, or null when payment was never captured. */
    public UUID paymentId() {
        return paymentId;
    }

    /** Null unless cancelled. */
    public String cancelReason() {
        return cancelReason;
    }

    public Instant createdAt() {
        return createdAt;
    }

    public Instant updatedAt() {
        return updatedAt;
    }
}
