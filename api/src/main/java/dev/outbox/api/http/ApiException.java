package dev.outbox.api.http;

/** An error the API itself raises with a ready-made problem (not found, bad id, ...). */
public final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Problem problem;
    private final String wwwAuthenticate;

    public ApiException(Problem problem) {
        this(problem, null);
    }

    /** A 401 carries the {@code WWW-Authenticate} challenge the client must answer. */
    public ApiException(Problem problem, String wwwAuthenticate) {
        super(problem.detail(), null, false, false);
        this.problem = problem;
        this.wwwAuthenticate = wwwAuthenticate;
    }

    public String wwwAuthenticate() {
        return wwwAuthenticate;
    }

    public static ApiException notFound(String what) {
        return new ApiException(Problem.of(404, "not_found", "Not found", what + " does not exist"));
    }

    public static ApiException badRequest(String code, String detail) {
        return new ApiException(Problem.of(400, code, "Invalid request", detail));
    }

    public Problem problem() {
        return problem;
    }
}
