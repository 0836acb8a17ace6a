package dev.outbox.api.http;

import dev.outbox.kernel.tracing.TraceContexts;
import dev.outbox.kernel.tracing.Tracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import java.util.List;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;
import org.glassfish.jersey.server.ExtendedUriInfo;
import org.glassfish.jersey.uri.UriTemplate;

/**
 * The server span of every HTTP request, around everything the API does with it (Grizzly's own
 * answers to a malformed target included), the child of the caller's {@code traceparent} when it
 * sent a valid one. Jersey names it by its route once it has matched one ({@link Route}):
 * {@code POST /orders/{id}/capture}, never the id itself. With tracing off the span is the no-op
 * one and this costs a header lookup.
 */
public final class HttpSpans extends HttpHandler {
    private static final TextMapGetter<Request> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Request carrier) {
            return carrier.getHeaderNames();
        }

        @Override
        public String get(Request carrier, String key) {
            return carrier == null ? null : carrier.getHeader(key);
        }
    };

    private final HttpHandler next;
    private final Tracer tracer;
    private final boolean enabled;

    public HttpSpans(HttpHandler next, OpenTelemetry openTelemetry) {
        super("http-spans");
        this.next = next;
        this.tracer = openTelemetry.getTracer(Tracing.SCOPE);
        this.enabled = TraceContexts.records(openTelemetry);
    }

    /** Jersey's start-up (the container's {@code onStartup}) runs through the handler it sits in. */
    @Override
    public void start() {
        next.start();
    }

    /** And its shutdown: injection manager, {@code @PreDestroy}, executors. */
    @Override
    public void destroy() {
        next.destroy();
    }

    @Override
    public void service(Request request, Response response) throws Exception {
        if (!enabled) {
            next.service(request, response);
            return;
        }
        Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), request, HEADERS);
        String method = request.getMethod().getMethodString();
        Span span = tracer.spanBuilder(method)
                .setParent(parent)
                .setSpanKind(SpanKind.SERVER)
                .setAttribute("http.request.method", method)
                .setAttribute("url.path", request.getRequestURI())
                .setAttribute("url.scheme", request.getScheme())
                .setAttribute("server.port", (long) request.getLocalPort())
                .startSpan();
        boolean threw = true;
        try (Scope ignored = span.makeCurrent()) {
            next.service(request, response);
            threw = false;
        } catch (Exception | Error e) {
            span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            span.setAttribute("error.type", e.getClass().getName());
            throw e;
        } finally {
            int status = response.getStatus();
            if (threw) {
                // what Grizzly answers after a handler threw is not decided yet: no status to record
                span.addEvent("the handler threw; Grizzly answers");
            } else if (status >= 500 && !request.getContext().getConnection().isOpen()) {
                // the client broke off (a body shorter than its Content-Length, then EOF): the
                // answer could not be written, and the 500 Jersey records for that failed write is
                // nobody's answer; the API's fault only when it is sent
                span.addEvent("the client closed the connection before the answer was written");
                span.setAttribute("error.type", "client_closed");
            } else {
                span.setAttribute("http.response.status_code", (long) status);
                if (status >= 500) {
                    span.setStatus(StatusCode.ERROR);
                    span.setAttribute("error.type", Integer.toString(status));
                }
            }
            span.end();
        }
    }

    /**
     * Names the request's span by the route Jersey matched ({@code http.route}), and records the
     * request's correlation id on it, so a trace is found from what a client quotes.
     */
    public static final class Route implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            Span span = Span.current();
            if (!span.isRecording()) {
                return;
            }
            if (request.getUriInfo() instanceof ExtendedUriInfo info) {
                List<UriTemplate> templates = info.getMatchedTemplates();
                StringBuilder route = new StringBuilder();
                for (int i = templates.size() - 1; i >= 0; i--) {
                    String t = templates.get(i).getTemplate();
                    if (!t.startsWith("/") && (route.isEmpty() || route.charAt(route.length() - 1) != '/')) {
                        route.append('/');
                    }
                    route.append(t);
                }
                String path = route.isEmpty() ? "/" : route.toString();
                span.setAttribute("http.route", path);
                span.updateName(request.getMethod() + " " + path);
            }
            Object m = request.getProperty(RequestMetadata.PROPERTY);
            if (m instanceof RequestMetadata metadata) {
                span.setAttribute("outbox.correlation_id", metadata.correlationId());
                if (metadata.tenantId() != null) {
                    span.setAttribute("outbox.tenant_id", metadata.tenantId());
                }
            }
        }
    }
}
