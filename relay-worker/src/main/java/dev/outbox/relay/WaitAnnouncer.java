package dev.outbox.relay;

import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;
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
    /**
     * The age at which the trigger (migration V6) no longer counts a registration: one minute,
     * less a margin for the time between reading this clock and the database stamping the row.
     */
    static final Duration LAPSED = Duration.ofSeconds(55);

    private final String relayId;
    private final OutboxStore store;
    private final LongSupplier nanoTime;
    /** The lanes sleeping for lack of work; the registration stands while this is not empty. */
    private final Set<Integer> waitingLanes = new HashSet<>();

    private volatile boolean enabled;
    private boolean registered;
    private long registeredAt;

    WaitAnnouncer(String relayId, OutboxStore store) {
        this(relayId, store, System::nanoTime);
    }

    /** With the monotonic clock it measures the registration's age by (tests step it). */
    WaitAnnouncer(String relayId, OutboxStore store, LongSupplier nanoTime) {
        this.relayId = relayId;
        this.store = store;
        this.nanoTime = nanoTime;
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
     * @return true when this lane has just started waiting, or when the registration had lapsed
     *     (a lane held back by a closed claim gate or an open breaker for over a minute renews it
     *     only now): it must claim once more before it sleeps (a row committed before the
     *     registration, while it had lapsed, or before this lane counted as waiting, sent no
     *     notification it could rely on)
     */
    synchronized boolean beforeWaiting(int lane) {
        if (!enabled) {
            return false;
        }
        long now = nanoTime.getAsLong();
        boolean lapsed = registered && now - registeredAt >= LAPSED.toNanos();
        if (!registered || now - registeredAt >= REFRESH.toNanos()) {
            store.waiting(relayId, true);
            registered = true;
            registeredAt = now;
        }
        return waitingLanes.add(lane) | lapsed;
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
