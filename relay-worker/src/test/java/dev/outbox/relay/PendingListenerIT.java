package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.persistence.DatabaseConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The notification listener survives what it does not expect: a wake-up that throws (any
 * RuntimeException or Error, not only a database error) is counted, the listener reconnects, and later
 * commits still wake the relay.
 */
class PendingListenerIT {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset();

    private PendingListener listener;

    @BeforeEach
    void clean() {
        // some relay waits, so that the trigger notifies on every commit (migration V6)
        fx.db.update("INSERT INTO outbox_relay_waiters (relay_id) VALUES ('waiting-relay')");
    }

    @AfterEach
    void close() {
        if (listener != null) {
            listener.close();
        }
    }

    @Test
    void aWakeUpThatThrowsIsCountedAndListeningGoesOn() {
        AtomicInteger wakeUps = new AtomicInteger();
        Runnable wakeUp = () -> {
            if (wakeUps.incrementAndGet() == 1) {
                throw new IllegalStateException("a wake-up that failed in a way nobody planned for");
            }
        };
        listener = new PendingListener(
                DatabaseConfig.of(fx.db.url(), fx.db.user(), fx.db.password(), "outbox-it"),
                wakeUp,
                new ExponentialBackoff(Duration.ofMillis(50), Duration.ofMillis(200)));
        listener.start();

        // the first wake-up, right after LISTEN, throws: the listener counts it and listens again
        await().atMost(WAIT).until(() -> listener.connects() == 2);
        assertEquals(1, listener.failures(PendingListener.FailureKind.UNEXPECTED));
        assertEquals(0, listener.failures(PendingListener.FailureKind.DATABASE));

        fx.insertRaw("test.notify", "test.notify", "orders.events", "{}");
        await().atMost(WAIT).until(() -> listener.notifications() == 1);
        await().atMost(WAIT).until(() -> wakeUps.get() == 3); // after the reconnect, and for the commit
    }

    @Test
    void aWakeUpThatThrowsAnErrorIsCountedAndListeningGoesOn() {
        AtomicInteger wakeUps = new AtomicInteger();
        Runnable wakeUp = () -> {
            if (wakeUps.incrementAndGet() == 1) {
                // not a RuntimeException: before the fix it ended the listener's thread for good
                throw new AssertionError("a broken invariant somewhere below the wake-up");
            }
        };
        listener = new PendingListener(
                DatabaseConfig.of(fx.db.url(), fx.db.user(), fx.db.password(), "outbox-it"),
                wakeUp,
                new ExponentialBackoff(Duration.ofMillis(50), Duration.ofMillis(200)));
        listener.start();

        await().atMost(WAIT).until(() -> listener.connects() == 2);
        assertEquals(1, listener.failures(PendingListener.FailureKind.UNEXPECTED));

        fx.insertRaw("test.notify", "test.notify", "orders.events", "{}");
        await().atMost(WAIT).until(() -> listener.notifications() == 1);
        await().atMost(WAIT).until(() -> wakeUps.get() == 3);
    }
}
