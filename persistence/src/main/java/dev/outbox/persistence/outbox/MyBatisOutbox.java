package dev.outbox.persistence.outbox;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import dev.outbox.Aggregate;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.Outbox;
import dev.outbox.OutboxException;
import dev.outbox.OutboxWriteException;
import dev.outbox.OutsideTransactionException;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.jdbc.OutboxMessages;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.persistence.DataAccessTranslation;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.sql.SQLException;
import java.time.Clock;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionManager;

/**
 * {@link Outbox} on MyBatis-Guice: the message becomes its row ({@link OutboxMessages}, as the JDBC
 * core makes it), inserted by a MyBatis statement in the session the caller's {@code @Transactional}
 * method opened. A MyBatis statement, not a raw one on the session's connection: mybatis-guice
 * commits a session only when a statement of it wrote, so a method whose one write is the message
 * would otherwise end without a commit. Refuses to run outside a transaction, where the row would
 * commit alone.
 */
@Singleton
public final class MyBatisOutbox implements Outbox {
    /** Binds {@link Outbox} to this implementation, which stays out of reach of services. */
    public static void bindIn(com.google.inject.Binder binder) {
        binder.bind(Outbox.class).to(MyBatisOutbox.class);
    }

    /**
     * The adapter: {@link Outbox} alone, over the {@link SqlSessionManager} the service's own
     * {@code MyBatisModule} binds, whose configuration gets the outbox's one insert ({@link
     * OutboxInsertMapper}). Nothing else is bound (a service's clock, mappers, transaction factory
     * and exception handling stay its own); ids and timestamps come from the system clock.
     */
    public static com.google.inject.Module besideAServicesMyBatisModule() {
        return new AbstractModule() {
            @Provides
            @jakarta.inject.Singleton
            Outbox outbox(SqlSessionManager sessions) {
                Configuration configuration = sessions.getConfiguration();
                synchronized (configuration) {
                    if (!configuration.hasMapper(OutboxInsertMapper.class)) {
                        configuration.addMapper(OutboxInsertMapper.class);
                    }
                }
                OutboxInsertMapper insert = sessions.getMapper(OutboxInsertMapper.class);
                return new MyBatisOutbox(sessions, Clock.systemUTC(), insert::insert);
            }
        };
    }

    private final SqlSessionManager sessions;
    private final Clock clock;
    private final Consumer<NewOutboxMessage> insert;

    /** The outbox's own persistence module: the outbox mapper's insert, with its span and translation. */
    @Inject
    MyBatisOutbox(SqlSessionManager sessions, Clock clock, OutboxMapper mapper) {
        this(sessions, clock, mapper::insert);
    }

    private MyBatisOutbox(SqlSessionManager sessions, Clock clock, Consumer<NewOutboxMessage> insert) {
        this.sessions = sessions;
        this.clock = clock;
        this.insert = insert;
    }

    @Override
    public UUID record(MessageType type, Aggregate aggregate, Object payload, MessageContext context) {
        if (!sessions.isManagedSessionStarted()) {
            throw new OutsideTransactionException(type);
        }
        NewOutboxMessage message = OutboxMessages.from(
                MessageContracts.onClasspath(),
                type,
                aggregate.type(),
                aggregate.id(),
                aggregate.version(),
                payload,
                context == null ? MessageContext.none() : context,
                clock.millis());
        try {
            insert.accept(message);
        } catch (OutboxException e) {
            throw e;
        } catch (RuntimeException e) {
            // MyBatis's, or what a plugin of the service's module made of it: the service's own
            // statements keep those; the outbox's row failing is the front door's
            throw writeFailed(type, e);
        }
        return message.id();
    }

    private static OutboxWriteException writeFailed(MessageType type, RuntimeException failure) {
        SQLException sql = DataAccessTranslation.sqlExceptionIn(failure);
        return sql == null ? new OutboxWriteException(type, failure) : new OutboxWriteException(type, sql);
    }
}
