package dev.outbox.domain;

import java.util.List;

/** The command is malformed: one or more fields break a rule. Nothing was changed. */
public final class InvalidInputException extends DomainException {
    private static final long serialVersionUID = 1L;
    private final transient List<Violation> violations;

    public InvalidInputException(List<Violation> violations) {
        super("validation_failed", summarise(violations));
        this.violations = List.copyOf(violations);
    }

    public static InvalidInputException of(String field, String message) {
        return new InvalidInputException(List.of(new Violation(field, message)));
    }

    public List<Violation> violations() {
        return violations;
    }

    private static String summarise(List<Violation> violations) {
        if (violations.isEmpty()) {
            throw new IllegalArgumentException("an InvalidInputException needs at least one violation");
        }
        StringBuilder sb = new StringBuilder();
        for (Violation v : violations) {
            if (sb.length() > 0) {
                sb.append("; ");
            }
            sb.append(v.field()).append(": ").append(v.message());
        }
        return sb.toString();
    }
}
