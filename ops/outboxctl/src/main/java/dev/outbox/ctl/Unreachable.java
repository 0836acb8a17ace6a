package dev.outbox.ctl;

/** The service could not be reached at all: nothing was sent, or no answer came back. */
public final class Unreachable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String baseUrl;
    private final String reason;

    public Unreachable(String baseUrl, String reason, Throwable cause) {
        super("cannot reach the outbox service at " + baseUrl + ": " + reason, cause);
        this.baseUrl = baseUrl;
        this.reason = reason;
    }

    public String baseUrl() {
        return baseUrl;
    }

    public String reason() {
        return reason;
    }
}
