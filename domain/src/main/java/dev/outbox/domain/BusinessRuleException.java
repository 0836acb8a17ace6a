package dev.outbox.domain;

/**
 * The command is well formed and the state allows the action, but its content contradicts the
 * aggregate (for example a capture amount that is not the order total). HTTP 422.
 */
public final class BusinessRuleException extends DomainException {
    private static final long serialVersionUID = 1L;

    public BusinessRuleException(String code, String message) {
        super(code, message);
    }
}
