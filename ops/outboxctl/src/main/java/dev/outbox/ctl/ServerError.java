package dev.outbox.ctl;

import java.util.List;

/**
 * The service answered with an error: its HTTP status and, from the problem body, the stable
 * {@code code}, {@code detail} and field errors.
 */
public final class ServerError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** One field of a validation failure. */
    public record FieldError(String field, String message) {}

    private final int status;
    private final String code;
    private final String detail;
    private final transient List<FieldError> errors;

    public ServerError(int status, String code, String detail, List<FieldError> errors) {
        super(status + " " + code + ": " + detail);
        this.status = status;
        this.code = code;
        this.detail = detail;
        this.errors = List.copyOf(errors);
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public String detail() {
        return detail;
    }

    public List<FieldError> errors() {
        return errors;
    }
}
