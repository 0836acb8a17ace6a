package dev.outbox.consumer.runtime;

import com.rabbitmq.client.Channel;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.persistence.DatabaseUnavailableException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A delivery's database work, tried again while the database is away: the delivery is held
 * unacked (neither counted as a failure nor requeued), so an outage never spends a message's
 * attempts nor a quorum queue's delivery count.
 */
final class DatabaseWait {
    private static final Logger LOG = LoggerFactory.getLogger(DatabaseWait.class);

    /** Between tries of a delivery while the database is away: soon after a blip, every 5 s in a long outage. */
    private static final ExponentialBackoff DATABASE_WAIT =
            new ExponentialBackoff(Duration.ofMillis(250), Duration.ofSeconds(5));

    /** Work that may meet a database outage, tried again until it gets past it. */
    @FunctionalInterface
    interface DatabaseWork<T, X extends Exception> {
        T run() throws X;
    }

    /**
     * The delivery's channel closed, or the runner is stopping, while the delivery waited for the
     * database: it is left unacked, and the broker gives it to a consumer again.
     */
    static final class Abandoned extends Exception {
        private static final long serialVersionUID = 1L;

        Abandoned() {
            super(null, null, false, false);
        }
    }

    private final ConsumerSettings settings;
    private final ConsumerStats stats;
    private final ConsumerChannels channels;

    DatabaseWait(ConsumerSettings settings, ConsumerStats stats, ConsumerChannels channels) {
        this.settings = settings;
        this.stats = stats;
        this.channels = channels;
    }

    /**
     * Runs {@code work} until it gets past a database outage. While the database is away the
     * delivery stays in hand, unacked, and the work is tried again after a pause (250 ms growing
     * to 5 s). It is never requeued for an outage: a requeue raises a quorum queue's
     * {@code x-delivery-count}, and a long outage would spend the queue's {@code x-delivery-limit}
     * on good messages. The channel's later deliveries wait behind this one (prefetch bounds
     * them), so nothing is consumed while the database is away. If the channel closes or the
     * runner stops meanwhile, the delivery is abandoned to the broker, which redelivers it.
     */
    <T, X extends Exception> T until(Channel ch, String messageId, DatabaseWork<T, X> work) throws X, Abandoned {
        int waits = 0;
        try {
            while (true) {
                try {
                    T result = work.run();
                    if (waits > 0) {
                        LOG.info(
                                "consumer {}: the database answers again; message_id={} went on after {} tries",
                                settings.name(),
                                messageId,
                                waits + 1);
                    }
                    return result;
                } catch (DatabaseUnavailableException e) {
                    if (waits == 0) {
                        stats.waitingForDatabase.incrementAndGet();
                        LOG.warn(
                                "consumer {} cannot reach the database ({}); message_id={} is held unacked and tried"
                                        + " again until it answers",
                                settings.name(),
                                e.getMessage(),
                                messageId);
                    }
                    stats.databaseWaits.increment();
                    if (channels.isClosed() || !ch.isOpen()) {
                        throw new Abandoned();
                    }
                    channels.awaitClosing(DATABASE_WAIT.delay(waits++));
                    if (channels.isClosed() || !ch.isOpen()) {
                        throw new Abandoned();
                    }
                }
            }
        } finally {
            if (waits > 0) {
                stats.waitingForDatabase.decrementAndGet();
            }
        }
    }
}
