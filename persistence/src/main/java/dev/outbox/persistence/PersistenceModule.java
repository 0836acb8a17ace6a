package dev.outbox.persistence;

import static com.google.inject.matcher.Matchers.annotatedWith;
import static com.google.inject.matcher.Matchers.any;

import com.google.inject.multibindings.OptionalBinder;
import dev.outbox.persistence.consumer.ProcessedMessageMapper;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.type.LongArrayTypeHandler;
import dev.outbox.persistence.type.StringArrayTypeHandler;
import dev.outbox.persistence.type.UuidArrayTypeHandler;
import dev.outbox.persistence.type.UuidTypeHandler;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.apache.ibatis.type.JdbcType;
import org.mybatis.guice.MyBatisModule;
import org.mybatis.guice.transactional.Transactional;

/**
 * MyBatis on Guice over one HikariCP pool, with the product's mappers and the {@code extraMappers}
 * of the process or service that installs it (the order service adds its own; nothing here names
 * a service's tables). The pool is built by the caller, which owns its
 * life cycle (start-up wait, close at shutdown). Every {@code @Transactional} method gets
 * {@link DataAccessTranslation} outside the transaction, so commit failures are translated too.
 */
public final class PersistenceModule extends MyBatisModule {
    private final DataSource dataSource;
    private final Duration statementTimeout;
    private final List<Class<?>> extraMappers;

    public PersistenceModule(DataSource dataSource, Duration statementTimeout, Class<?>... extraMappers) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.statementTimeout = statementTimeout;
        this.extraMappers = List.of(extraMappers);
    }

    /**
     * The bindings that make the statements and transactions of a process traced: installed
     * beside this module by a process whose {@link dev.outbox.kernel.tracing.Tracing} is on.
     */
    public static com.google.inject.Module tracedBy(OpenTelemetry openTelemetry) {
        return binder -> OptionalBinder.newOptionalBinder(binder, OpenTelemetry.class)
                .setBinding()
                .toInstance(openTelemetry);
    }

    @Override
    protected void initialize() {
        environmentId("outbox");
        bindDataSourceProvider((jakarta.inject.Provider<DataSource>) () -> dataSource);
        bindTransactionFactoryType(ConnectionLossAwareTransactionFactory.class);
        mapUnderscoreToCamelCase(true);
        useCacheEnabled(false);
        defaultStatementTimeout((int) Math.max(1, statementTimeout.toSeconds()));
        bindConfigurationSetting(configuration -> {
            configuration.setArgNameBasedConstructorAutoMapping(true);
            configuration.setJdbcTypeForNull(JdbcType.NULL);
            configuration.setLocalCacheScope(org.apache.ibatis.session.LocalCacheScope.STATEMENT);
        });

        addTypeHandlerClass(UuidTypeHandler.class);
        addTypeHandlerClass(dev.outbox.persistence.type.InstantTypeHandler.class);
        addTypeHandlerClass(UuidArrayTypeHandler.class);
        addTypeHandlerClass(LongArrayTypeHandler.class);
        addTypeHandlerClass(StringArrayTypeHandler.class);

        addMapperClass(OutboxMapper.class);
        addMapperClass(ProcessedMessageMapper.class);
        addMapperClass(dev.outbox.persistence.consumer.ConsumerStateMapper.class);
        addMapperClass(dev.outbox.persistence.idempotency.IdempotencyKeyMapper.class);
        addMapperClass(dev.outbox.persistence.ops.OpsMapper.class);
        addMapperClass(dev.outbox.persistence.retention.RetentionMapper.class);
        addMapperClass(dev.outbox.persistence.relay.RelayRegistryMapper.class);
        addMapperClass(dev.outbox.persistence.cdc.CdcMapper.class);
        extraMappers.forEach(this::addMapperClass);
        dev.outbox.persistence.outbox.MyBatisOutbox.bindIn(binder());
        // a service may set its own (OptionalBinder.setBinding); the outbox's timestamps and ids use it
        OptionalBinder.newOptionalBinder(binder(), Clock.class).setDefault().toInstance(Clock.systemUTC());

        // tracing: off unless the process binds its OpenTelemetry (Tracing); spans only inside a trace
        OptionalBinder.newOptionalBinder(binder(), OpenTelemetry.class)
                .setDefault()
                .toInstance(OpenTelemetry.noop());
        addInterceptorClass(StatementSpans.class);
        TransactionSpans transactionSpans = new TransactionSpans();
        requestInjection(transactionSpans);

        // bound before MyBatisModule binds its transaction interceptor, so they wrap it: the span
        // outermost, so it ends after the commit and sees the failure as translated
        bindInterceptor(any(), annotatedWith(Transactional.class), transactionSpans);
        bindInterceptor(any(), annotatedWith(Transactional.class), new DataAccessTranslation());
    }
}
