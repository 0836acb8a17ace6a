package dev.outbox.consumer.runtime;

import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.consumer.InboundMessage;
import dev.outbox.consumer.MessageHandler;
import dev.outbox.consumer.OutboxConsumer;
import dev.outbox.consumer.RetainedTable;
import jakarta.inject.Inject;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;

/**
 * The runtime's own test consumer, none of the samples: a table of its own from its own
 * migrations ({@code db/runtime_test}), kept short by retention, on a queue of its own that takes
 * every order event (deliveryLimit 50 for the quorum checks).
 */
public final class RuntimeTestConsumer implements OutboxConsumer {
    static final String NAME = "runtime_test";
    static final String QUEUE = "runtime-test.order-events";

    /** Its effect: one row per message. */
    public interface EffectMapper {
        @Insert("INSERT INTO runtime_test_effects (message_id, message_type) VALUES (#{id}, #{type})")
        void record(@Param("id") String messageId, @Param("type") String messageType);

        @Delete("DELETE FROM runtime_test_effects WHERE message_id IN (SELECT message_id FROM runtime_test_effects"
                + " WHERE applied_at < now() - make_interval(secs => #{ageMillis} / 1000.0) LIMIT #{batch})")
        int deleteOlderThan(@Param("ageMillis") long ageMillis, @Param("batch") int batch);
    }

    /** Records each message it is given. */
    public static final class RecordingHandler implements MessageHandler {
        private final EffectMapper effects;

        @Inject
        public RecordingHandler(EffectMapper effects) {
            this.effects = effects;
        }

        @Override
        public void apply(InboundMessage message) {
            effects.record(message.messageId(), message.messageType());
        }
    }

    static final ConsumerRegistration REGISTRATION = ConsumerRegistration.builder(NAME, QUEUE, RecordingHandler.class)
            .mappers(EffectMapper.class)
            .migrations("classpath:db/runtime_test")
            .retain(new RetainedTable<>(
                    "runtime_test_effects",
                    EffectMapper.class,
                    (m, olderThan, batch) -> m.deleteOlderThan(olderThan.toMillis(), batch)))
            .build();

    @Override
    public ConsumerRegistration registration() {
        return REGISTRATION;
    }
}
