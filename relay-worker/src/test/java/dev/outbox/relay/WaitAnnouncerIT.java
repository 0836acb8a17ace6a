package dev.outbox.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The wait registration of a relay with several publishing lanes, against PostgreSQL: it stands
 * while any lane waits, so that writers keep notifying, and goes when the last waiting lane gets
 * work.
 */
class WaitAnnouncerIT {
    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset();

    private long registrations() {
        return fx.db.count("SELECT count(*) FROM outbox_relay_waiters WHERE relay_id = 'relay-lanes'");
    }

    /** Whether a committed outbox insert notifies now. */
    private boolean aWriterNotifies() throws Exception {
        try (Connection listener = DriverManager.getConnection(fx.db.url(), fx.db.user(), fx.db.password())) {
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN " + PendingListener.CHANNEL);
            }
            fx.insertRaw("test.notify", "test.notify", "orders.events", "{\"n\":\"" + UUID.randomUUID() + "\"}");
            // a notification is delivered at commit; 2 s is generous on a loaded machine
            PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(2_000);
            return got != null && got.length > 0;
        }
    }

    @Test
    void theRegistrationStandsWhileAnyLaneWaits() throws Exception {
        WaitAnnouncer waits = new WaitAnnouncer("relay-lanes", fx.store());
        waits.enable();
        assertTrue(waits.beforeWaiting(0), "the first lane to wait registers and claims once more");
        assertTrue(waits.beforeWaiting(1), "a lane that starts waiting claims once more too");
        assertEquals(1, registrations());

        waits.busy(1); // lane 1 found work; lane 0 still sleeps
        assertEquals(1, registrations(), "lane 0 still waits: writers must go on notifying");
        assertTrue(aWriterNotifies());

        waits.busy(0);
        assertEquals(0, registrations(), "no lane waits");
        assertTrue(!aWriterNotifies(), "and writers stop paying for notifications");

        assertTrue(waits.beforeWaiting(1));
        assertEquals(1, registrations());
        waits.withdraw();
        assertEquals(0, registrations());
    }

    @Test
    void aLaneThatResumesAfterTheRegistrationExpiredClaimsOnceMore() throws Exception {
        AtomicLong nanos = new AtomicLong();
        WaitAnnouncer waits = new WaitAnnouncer("relay-lanes", fx.store(), nanos::get);
        waits.enable();
        assertTrue(waits.beforeWaiting(0));

        // the lane sat behind a closed claim gate or an open breaker for more than a minute: it is
        // still in the waiting set, but the trigger ignores its registration by now
        nanos.addAndGet(Duration.ofSeconds(70).toNanos());
        fx.db.update("UPDATE outbox_relay_waiters SET since = now() - interval '70 seconds'"
                + " WHERE relay_id = 'relay-lanes'");
        assertTrue(!aWriterNotifies(), "the expired registration notifies nobody: that row waits for a claim");

        assertTrue(waits.beforeWaiting(0), "renewing an expired registration must be followed by one more claim");
        assertTrue(aWriterNotifies(), "renewed");
        assertTrue(!waits.beforeWaiting(0), "a registration still current needs no extra claim");
    }
}
