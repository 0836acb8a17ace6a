package dev.outbox.persistence;

import dev.outbox.kernel.tracing.TraceContexts;
import dev.outbox.kernel.tracing.Tracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import jakarta.inject.Inject;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

/**
 * A span around every {@code @Transactional} method called inside a trace (an HTTP request's, a
 * consumer's delivery): {@code OrderService.capture}, its statements as children
 * ({@link StatementSpans}). The outermost one's span includes the commit
 * ({@code outbox.transaction=begin-commit}); a nested one joins its caller's transaction
 * ({@code joined}), as mybatis-guice runs it. The outbox rows written in it carry this span's
 * context, so the relay's publish is its child. Outside a trace it makes no span: the relay's
 * claim loop, polling ten times a second, must not fill a tracing backend with root spans.
 */
final class TransactionSpans implements MethodInterceptor {
    /** Whether this thread is inside a transactional method already: a nested one joins it. */
    private static final ThreadLocal<Boolean> IN_TRANSACTION = ThreadLocal.withInitial(() -> false);

    private volatile Tracer tracer = OpenTelemetry.noop().getTracer(Tracing.SCOPE);

    @Inject
    void use(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer(Tracing.SCOPE);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        if (!TraceContexts.inTrace()) {
            return invocation.proceed();
        }
        boolean joins = IN_TRANSACTION.get();
        Span span = tracer.spanBuilder(
                        invocation.getMethod().getDeclaringClass().getSimpleName() + "."
                                + invocation.getMethod().getName())
                .setAttribute("db.system.name", "postgresql")
                // the outermost one begins and commits; a nested one runs inside its caller's
                .setAttribute("outbox.transaction", joins ? "joined" : "begin-commit")
                .startSpan();
        IN_TRANSACTION.set(true);
        try (Scope ignored = span.makeCurrent()) {
            return invocation.proceed();
        } catch (Throwable t) {
            // a rolled-back transaction: its rows, outbox rows included, never existed
            span.setStatus(StatusCode.ERROR, "rolled back: " + t.getClass().getSimpleName());
            span.setAttribute("error.type", t.getClass().getName());
            throw t;
        } finally {
            IN_TRANSACTION.set(joins);
            span.end();
        }
    }
}
