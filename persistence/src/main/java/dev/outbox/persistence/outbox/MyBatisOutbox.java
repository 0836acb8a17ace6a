package dev.outbox.persistence.outbox;

import dev.outbox.domain.event.MessageType;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.producer.Aggregate;
import dev.outbox.producer.MessageContext;
import dev.outbox.producer.Outbox;
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
    private final OutboxMapper mapper;
    private final SqlSessionManager sessions;
    private final Clock clock;

    @Inject
    MyBatisOutbox(OutboxMapper mapper, SqlSessionManager sessions) {
        this.mapper = mapper;
        this.sessions = sessions;
        this.clock = Clock.systemUTC();
    }

    @Override
    public UUID record(MessageType type, Aggregate aggregate, Object payload, MessageContext context) {
        if (!sessions.isManagedSessionStarted()) {
            throw new IllegalStateException("Outbox.record(" + type + ") was called outside a transaction: call it"
                    + " inside the @Transactional method that writes your own rows, so they commit together");
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
