package dev.outbox.relay;

import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the database when this relay waits for work, so that writers' transactions send the
 * {@code outbox_pending} notification only then (migration V6): a notification serialises the
 * writer's commit with every other notifying commit, and a busy relay does not need one. Shared by
 * the relay's publishing lanes; does nothing unless the relay listens for notifications.
 *
 * <p>The order closes the race with a writer: register, then claim once more, then sleep. A row
 * committed before the registration is found by that claim; one committed after it notifies.
 */
final class WaitAnnouncer {
    private static final Logger LOG = LoggerFactory.getLogger(WaitAnnouncer.class);
    /** Well inside the minute after which the trigger ignores a registration. */
    static final Duration REFRESH = Duration.ofSeconds(30);

    private final String relayId;
    private final OutboxStore store;
    private final AtomicBoolean registered = new AtomicBoolean();
    private volatile boolean enabled;
    private volatile long registeredAt;

    WaitAnnouncer(String relayId, OutboxStore store) {
        this.relayId = relayId;
        this.store = store;
    }

    /** Turned on by the relay process when it listens for notifications. */
    void enable() {
        enabled = true;
    }

    /**
     * Called when a claim found nothing, before sleeping.
     *
     * @return true when the registration is new: the caller must claim once more before it sleeps
     */
    boolean beforeWaiting() {
        if (!enabled) {
            return false;
        }
        long now = System.nanoTime();
        if (registered.get() && now - registeredAt < REFRESH.toNanos()) {
            return false;
        }
        store.waiting(relayId, true);
        registeredAt = now;
        return !registered.getAndSet(true);
    }

    /** Called when a claim found work: writers need not notify while this relay is busy. */
    void busy() {
        if (registered.get()) {
            store.waiting(relayId, false);
            registered.set(false);
        }
    }

    /** At shutdown: best effort, a leftover registration expires by itself within a minute. */
    void withdraw() {
        if (registered.get()) {
            try {
                store.waiting(relayId, false);
                registered.set(false);
            } catch (DataAccessException e) {
                LOG.debug("could not withdraw the wait registration of {}: {}", relayId, e.getMessage());
            }
        }
    }
}
