package dev.outbox.api.http;

import java.io.IOException;
import java.net.URISyntaxException;
import java.util.UUID;
import org.glassfish.grizzly.http.server.ErrorPageGenerator;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Problem answers for what fails in Grizzly itself, outside Jersey's exception mappers: a request
 * target Jersey cannot turn into a URI, and Grizzly's own error pages, which would otherwise be
 * HTML naming the exception and the server's version.
 */
public final class GrizzlyProblems {
    private static final Logger LOG = LoggerFactory.getLogger(GrizzlyProblems.class);

    private GrizzlyProblems() {}

    /**
     * Jersey's container builds the request URI from the request line and the {@code Host} header
     * before anything of the application runs, and a malformed %-escape (or a Host with a space)
     * throws there. This handler runs Jersey and answers that case with 400; Jersey's own
     * processing is unaffected (it maps its exceptions itself).
     */
    public static final class RequestTargetGuard extends HttpHandler {
        private final HttpHandler jersey;

        public RequestTargetGuard(HttpHandler jersey) {
            super("request-target-guard");
            this.jersey = jersey;
        }

        private static void invalidTarget(Response response, String detail) throws IOException {
            write(response, Problem.of(400, "invalid_request_target", "Invalid request", detail));
        }

        @Override
        public void service(Request request, Response response) throws Exception {
            if (!hostIsAHost(request)) {
                invalidTarget(response, "the Host header is not a host name or address with an optional port");
                return;
            }
            try {
                jersey.service(request, response);
            } catch (IllegalArgumentException e) {
                if (!(e.getCause() instanceof URISyntaxException) || response.isCommitted()) {
                    throw e;
                }
                invalidTarget(
                        response,
                        "the request target or Host header is not a valid URI (a %-escape is two hex digits)");
            }
        }

        /**
         * Jersey builds its base URI from the Host header; Grizzly parses the port out of it
         * lazily and throws (not a URISyntaxException) when it is not a number.
         */
        private static boolean hostIsAHost(Request request) {
            try {
                new java.net.URI(
                        request.getScheme(), null, request.getServerName(), request.getServerPort(), null, null, null);
                return true;
            } catch (URISyntaxException | RuntimeException e) {
                return false;
            }
        }

        @Override
        public void start() {
            jersey.start();
        }

        @Override
        public void destroy() {
            jersey.destroy();
        }
    }

    /**
     * Whatever Grizzly answers by itself (a failure it caught around a handler, 503 while shutting
     * down) is a problem, not its HTML page; a 5xx gets an {@code errorId} logged with the cause.
     */
    public static final class ProblemErrorPage implements ErrorPageGenerator {
        @Override
        public String generate(
                Request request, int status, String reasonPhrase, String description, Throwable exception) {
            Problem problem = status >= 500
                    ? Problem.of(
                            status,
                            status == 503 ? "service_unavailable" : "internal_error",
                            status == 503 ? "Temporarily unavailable" : "Internal error",
                            status == 503
                                    ? "the server is stopping; retry on another instance"
                                    : "the request failed on our side; quote the errorId when reporting it")
                    : Problem.of(
                            status,
                            reasonPhrase == null
                                    ? "error"
                                    : reasonPhrase
                                            .toLowerCase(java.util.Locale.ROOT)
                                            .replace(' ', '_'),
                            reasonPhrase == null ? "Error" : reasonPhrase,
                            "the request cannot be processed as sent");
            if (status >= 500 && status != 503) {
                String errorId = UUID.randomUUID().toString();
                problem = problem.withErrorId(errorId);
                LOG.error("errorId={} answered by the HTTP server itself: {}", errorId, description, exception);
            }
            // HtmlHelper sets text/html only when no type is set yet
            request.getResponse().setContentType(Problem.MEDIA_TYPE);
            return new String(problem.toJson(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    static void write(Response response, Problem problem) throws IOException {
        String correlation = UUID.randomUUID().toString();
        byte[] body = problem.withCorrelationId(correlation).toJson();
        response.setStatus(problem.status(), problem.title());
        response.setHeader(RequestMetadataFilter.CORRELATION_ID, correlation);
        response.setContentType(Problem.MEDIA_TYPE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
