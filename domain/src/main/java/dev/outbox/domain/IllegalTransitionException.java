package dev.outbox.domain;

/** The command is well formed but the aggregate's current state does not allow it (HTTP 409). */
public final class IllegalTransitionException extends DomainException {
    private static final long serialVersionUID = 1L;
    private final OrderStatus from;
    private final String action;

    public IllegalTransitionException(OrderStatus from, String action) {
        super("illegal_transition", "cannot " + action + " an order that is " + from);
        this.from = from;
        this.action = action;
    }

    public OrderStatus from() {
        return from;
    }

    public String action() {
        return action;
    }
}
