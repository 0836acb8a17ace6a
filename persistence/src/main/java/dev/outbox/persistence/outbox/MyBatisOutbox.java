package dev.outbox.persistence.outbox;

import dev.outbox.Aggregate;
import dev.outbox.MessageContext;
import dev.outbox.MessageType;
import dev.outbox.Outbox;
import dev.outbox.OutsideTransactionException;
import dev.outbox.kernel.contract.MessageContracts;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.UUID;
import org.apache.ibatis.session.SqlSessionManager;

/**
 * {@link Outbox} on the outbox mapper: validates, then inserts in the session of the caller's
 * {@code @Transactional} method. Refuses to run outside one, where the row would commit alone.
 */
@Singleton
public final class MyBatisOutbox implements Outbox {
    /** Binds {@link Outbox} to this implementation, which stays out of reach of services. */
    public static void bindIn(com.google.inject.Binder binder) {
        binder.bind(Outbox.class).to(MyBatisOutbox.class);
    }

    private final OutboxMapper mapper;
    private final SqlSessionManager sessions;
    private final Clock clock;

    @Inject
    MyBatisOutbox(OutboxMapper mapper, SqlSessionManager sessions, Clock clock) {
        this.mapper = mapper;
        this.sessions = sessions;
        this.clock = clock;
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
        mapper.insert(message);
        return message.id();
    }
}
