package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.outbox.OutboxStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's timer tasks (confirm-timeout sweep, stale-lease recovery) survive an {@link Error}:
 * a {@link ScheduledExecutorService} silently stops running a task that threw once.
 */
class OutboxRelayTimerTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final RelayStats stats = new RelayStats(meters);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private double unexpected(String where) {
        return meters.get("outbox.relay.unexpected.failures")
                .tag("where", where)
                .counter()
                .count();
    }

    private static Runnable throwingFirst(AtomicInteger runs) {
        return () -> {
            if (runs.incrementAndGet() == 1) {
                throw new StackOverflowError("injected: the first run throws an Error");
            }
        };
    }

    @Test
    void withoutTheWrapperATaskThatThrowsAnErrorIsNeverRunAgain() throws Exception {
        // what the wrapper exists for, shown on the JDK itself
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> f = timer.scheduleWithFixedDelay(throwingFirst(runs), 0, 5, TimeUnit.MILLISECONDS);
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof StackOverflowError, e.toString());
        assertEquals(1, runs.get());
    }

    @Test
    void aWrappedTaskThatThrowsAnErrorIsCountedAndRunsAgain() {
        AtomicInteger runs = new AtomicInteger();
        timer.scheduleWithFixedDelay(
                OutboxRelay.surviving("confirm-timeout-sweep", stats, throwingFirst(runs)),
                0,
                5,
                TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() >= 3);
        assertEquals(1.0, unexpected("confirm-timeout-sweep"));
    }

    @Test
    void staleLeaseRecoveryThatThrowsAnErrorRunsAgainOnTheRelaysOwnTimer() {
        AtomicInteger runs = new AtomicInteger();
        OutboxStore store = new OutboxStore(null) {
            @Override
            public List<OutboxMapper.StaleLease> releaseStaleLocks(Duration lease, int maxAttempts, int limit) {
                if (runs.incrementAndGet() == 1) {
                    throw new OutOfMemoryError("injected: the first recovery throws an Error");
                }
                return List.of();
            }
        };
        Settings settings =
                new Settings(Map.of("OUTBOX_RELAY_ID", "relay-timer", "OUTBOX_RELAY_STALE_CHECK_INTERVAL", "100ms"));
        // never started: no broker connection, so the lanes and the suspect thread only wait
        BrokerSession session = new BrokerSession(
                BrokerConfig.from(settings, "amqp://guest:guest@127.0.0.1:1/none", "relay-timer-test"),
                new ExponentialBackoff(Duration.ofMillis(100), Duration.ofSeconds(1)),
                c -> {});
        OutboxRelay relay = new OutboxRelay(RelayConfig.from(settings), store, session, stats);
        relay.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() >= 3);
            assertEquals(1.0, unexpected("stale-lease-recovery"));
        } finally {
            relay.stop();
        }
    }
}
