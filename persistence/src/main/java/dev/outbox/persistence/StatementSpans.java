package dev.outbox.persistence;

import dev.outbox.kernel.tracing.TraceContexts;
import dev.outbox.kernel.tracing.Tracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import jakarta.inject.Inject;
import java.lang.reflect.InvocationTargetException;
import org.apache.ibatis.cache.CacheKey;
import org.apache.ibatis.executor.Executor;
import org.apache.ibatis.mapping.BoundSql;
import org.apache.ibatis.mapping.MappedStatement;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.plugin.Intercepts;
import org.apache.ibatis.plugin.Invocation;
import org.apache.ibatis.plugin.Signature;
import org.apache.ibatis.session.ResultHandler;
import org.apache.ibatis.session.RowBounds;

/**
 * A client span for each MyBatis statement run inside a trace: {@code OutboxMapper.insert}
 * ({@code INSERT}) under the transaction that writes the order, so a trace shows the outbox row
 * being written with the business change. Named by the mapper method, which says more than a
 * table name; no parameter values are recorded. Outside a trace it makes none (see
 * {@link TransactionSpans}).
 */
@Intercepts({
    @Signature(
            type = Executor.class,
            method = "update",
            args = {MappedStatement.class, Object.class}),
    @Signature(
            type = Executor.class,
            method = "query",
            args = {MappedStatement.class, Object.class, RowBounds.class, ResultHandler.class}),
    @Signature(
            type = Executor.class,
            method = "query",
            args = {
                MappedStatement.class,
                Object.class,
                RowBounds.class,
                ResultHandler.class,
                CacheKey.class,
                BoundSql.class
            })
})
public final class StatementSpans implements Interceptor {
    private final Tracer tracer;
    private final boolean enabled;

    @Inject
    public StatementSpans(OpenTelemetry openTelemetry) {
        this.tracer = openTelemetry.getTracer(Tracing.SCOPE);
        this.enabled = TraceContexts.records(openTelemetry);
    }

    /** With tracing off the executor is not wrapped at all: no proxy, no reflection per statement. */
    @Override
    public Object plugin(Object target) {
        return enabled ? Interceptor.super.plugin(target) : target;
    }

    @Override
    public Object intercept(Invocation invocation) throws Throwable {
        if (!TraceContexts.inTrace()) {
            return invocation.proceed();
        }
        MappedStatement statement = (MappedStatement) invocation.getArgs()[0];
        String id = statement.getId();
        int dot = id.lastIndexOf('.', id.lastIndexOf('.') - 1);
        Span span = tracer.spanBuilder(id.substring(dot + 1))
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute("db.system.name", "postgresql")
                .setAttribute("db.operation.name", statement.getSqlCommandType().name())
                .setAttribute("code.function.name", id)
                .startSpan();
        try (Scope ignored = span.makeCurrent()) {
            return invocation.proceed();
        } catch (InvocationTargetException e) {
            fail(span, e.getCause() == null ? e : e.getCause());
            throw e;
        } catch (RuntimeException | Error e) {
            fail(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    private static void fail(Span span, Throwable t) {
        span.setStatus(StatusCode.ERROR, t.getClass().getSimpleName());
        span.setAttribute("error.type", t.getClass().getName());
    }
}
