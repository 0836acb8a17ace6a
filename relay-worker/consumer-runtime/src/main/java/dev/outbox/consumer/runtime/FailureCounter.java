package dev.outbox.consumer.runtime;

import dev.outbox.persistence.consumer.ConsumerStateMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.mybatis.guice.transactional.Transactional;

/**
 * Counts failed attempts per message in a transaction of its own, after the failed one rolled
 * back: the count must survive the rollback and the redelivery.
 */
@Singleton
public class FailureCounter {
    private final ConsumerStateMapper state;

    @Inject
    public FailureCounter(ConsumerStateMapper state) {
        this.state = state;
    }

    /** @return attempts so far, this one included */
    @Transactional(force = true)
    public int failed(String consumer, String messageId, String error) {
        return state.recordFailure(consumer, messageId, truncate(error));
    }

    @Transactional
    public void deadLettered(String consumer, String messageId, String reason) {
        state.markDeadLettered(consumer, messageId, truncate(reason));
    }

    private static String truncate(String s) {
        if (s == null) {
            return "unknown";
        }
        // a reason may quote the message's own bytes, and PostgreSQL text cannot hold NUL
        String text = s.replace('\u0000', '\uFFFD');
        return text.length() > 1_000 ? text.substring(0, 1_000) : text;
    }
}
