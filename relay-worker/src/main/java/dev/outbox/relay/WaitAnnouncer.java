package dev.outbox.relay;

import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
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
 * With several lanes the registration stands while any of them waits.
 */
final class WaitAnnouncer {
    private static final Logger LOG = LoggerFactory.getLogger(WaitAnnouncer.class);
    /** Well inside the minute after which the trigger ignores a registration. */
    static final Duration REFRESH = Duration.ofSeconds(30);

    private final String relayId;
    private final OutboxStore store;
    /** The lanes sleeping for lack of work; the registration stands while this is not empty. */
    private final Set<Integer> waitingLanes = new HashSet<>();
    private volatile boolean enabled;
    private boolean registered;
    private long registeredAt;

    WaitAnnouncer(String relayId, OutboxStore store) {
        this.relayId = relayId;
        this.store = store;
    }

    /** Turned on by the relay process when it listens for notifications. */
    void enable() {
        enabled = true;
    }

    /**
     * Called by a lane whose claim found nothing, before it sleeps. Synchronized with
     * {@link #busy}, so that the registration in the database always follows "some lane waits":
     * one lane finding work must not withdraw it while another sleeps.
     *
     * @return true when this lane has just started waiting: it must claim once more before it
     *     sleeps (a row committed before the registration, or before this lane counted as waiting,
     *     sent no notification it could rely on)
     */
    synchronized boolean beforeWaiting(int lane) {
        if (!enabled) {
            return false;
        }
        long now = System.nanoTime();
        if (!registered || now - registeredAt >= REFRESH.toNanos()) {
            store.waiting(relayId, true);
            registered = true;
            registeredAt = now;
        }
        return waitingLanes.add(lane);
    }

    /** Called by a lane whose claim found work: writers need not notify once no lane waits. */
    synchronized void busy(int lane) {
        if (!waitingLanes.remove(lane) || !waitingLanes.isEmpty() || !registered) {
            return;
        }
        // on failure the registration stays: writers notify for nothing until it expires, harmless
        store.waiting(relayId, false);
        registered = false;
    }

    /** At shutdown: best effort, a leftover registration expires by itself within a minute. */
    synchronized void withdraw() {
        waitingLanes.clear();
        if (registered) {
            try {
                store.waiting(relayId, false);
                registered = false;
            } catch (DataAccessException e) {
                LOG.debug("could not withdraw the wait registration of {}: {}", relayId, e.getMessage());
            }
        }
    }
}
