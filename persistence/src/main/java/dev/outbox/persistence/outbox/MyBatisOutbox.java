package dev.outbox.persistence.outbox;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import dev.outbox.Aggregate;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.Outbox;
import dev.outbox.OutsideTransactionException;
import dev.outbox.jdbc.JdbcOutbox;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.UUID;
import org.apache.ibatis.session.SqlSessionManager;

/**
 * {@link Outbox} on MyBatis-Guice: the JDBC core ({@link JdbcOutbox}) on the connection of the
 * session the caller's {@code @Transactional} method opened. Refuses to run outside one, where the
 * row would commit alone. Serves both the outbox's own persistence module and the adapter a
 * service installs beside a {@code MyBatisModule} of its own ({@link #besideAServicesMyBatisModule}).
 */
@Singleton
public final class MyBatisOutbox implements Outbox {
    /** Binds {@link Outbox} to this implementation, which stays out of reach of services. */
    public static void bindIn(com.google.inject.Binder binder) {
        binder.bind(Outbox.class).to(MyBatisOutbox.class);
    }

    /**
     * The adapter: {@link Outbox} alone, over the {@link SqlSessionManager} the service's own
     * {@code MyBatisModule} binds. Nothing else is bound (a service's clock, mappers, transaction
     * factory and exception handling stay its own); ids and timestamps come from the system clock.
     */
    public static com.google.inject.Module besideAServicesMyBatisModule() {
        return new AbstractModule() {
            @Provides
            @jakarta.inject.Singleton
            Outbox outbox(SqlSessionManager sessions) {
                return new MyBatisOutbox(sessions, Clock.systemUTC());
            }
        };
    }

    private final SqlSessionManager sessions;
    private final JdbcOutbox jdbc;

    @Inject
    MyBatisOutbox(SqlSessionManager sessions, Clock clock) {
        this.sessions = sessions;
        this.jdbc = new JdbcOutbox(clock);
    }

    @Override
    public UUID record(MessageType type, Aggregate aggregate, Object payload, MessageContext context) {
        if (!sessions.isManagedSessionStarted()) {
            throw new OutsideTransactionException(type);
        }
        return jdbc.record(sessions.getConnection(), type, aggregate, payload, context);
    }
}
