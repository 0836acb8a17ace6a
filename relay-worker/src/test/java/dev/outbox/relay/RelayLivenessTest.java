package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.relay.LivenessLock;
import dev.outbox.persistence.relay.RelayRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The liveness holder's loop with a fake lock session: whatever the session throws, the holder
 * never keeps the claim gate open without the lock, and it takes the lock again. The real lock,
 * sessions and sweeps are {@code RelayLivenessIT}'s and {@code RelayRegistryIT}'s.
 */
class RelayLivenessTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ClaimGate gate = new ClaimGate();
    private final Connector connector = new Connector();
    private RelayLiveness liveness;

    @AfterEach
    void stop() {
        if (liveness != null) {
            liveness.close();
        }
    }

    private RelayLiveness start(Duration checkInterval) {
        liveness = new RelayLiveness(
                new LivenessConfig(true, checkInterval, Duration.ofSeconds(10), Duration.ofDays(1), Duration.ZERO),
                connector,
                "relay-fake",
                new QuietRegistry(),
                gate,
                () -> {},
                new ExponentialBackoff(Duration.ofMillis(10), Duration.ofMillis(50)),
                5,
                meters);
        liveness.start();
        return liveness;
    }

    private double errors() {
        return meters.get("outbox.relay.liveness.errors").counter().count();
    }

    @Test
    void anErrorOnTheLockSessionClosesTheGateAndTheHolderTakesTheLockAgain() throws Exception {
        FakeLock first = new FakeLock();
        connector.next.put(() -> first);
        RelayLiveness l = start(Duration.ofMillis(50));
        await().atMost(Duration.ofSeconds(10)).until(() -> l.holdsLock() && gate.isOpen());
        first.onHeartbeat = () -> {
            throw new StackOverflowError("fake: an Error, not an Exception");
        };

        // the second session is not handed out yet: in between, the relay must not look alive
        await().atMost(Duration.ofSeconds(10)).until(() -> !l.holdsLock());
        assertFalse(gate.isOpen(), "no claims without the lock");
        assertTrue(l.health().startsWith("DOWN"), l.health());
        assertEquals(1, l.lost());
        assertEquals(1.0, errors());
        await().atMost(Duration.ofSeconds(10)).until(() -> first.closed);

        connector.next.put(FakeLock::new);
        await().atMost(Duration.ofSeconds(10)).until(() -> l.holdsLock() && gate.isOpen());
        assertEquals(2, l.acquisitions());
        assertEquals("UP", l.health());
    }

    @Test
    void aLockHeldOnlyByAPeersSweepIsTakenAtOnceAndNotReportedAsInUse() throws Exception {
        FakeLock lock = new FakeLock();
        lock.acquireResults.add(false);
        lock.holder = new LivenessLock.LockHolder("backend 42 (outbox-relay from a local socket)", false);
        connector.next.put(() -> lock);
        // a long check interval: waiting a whole one after the sweep's refusal is the defect
        RelayLiveness l = start(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(5)).until(l::holdsLock);
        assertEquals(0, l.refused(), "a sweep giving back a dead incarnation's rows is not a twin process");
        assertEquals(2, lock.acquireCalls.get());
    }

    @Test
    void aNonLivenessHolderThatKeepsTheLockIsReportedInUseFromTheSecondRefusal() throws Exception {
        FakeLock lock = new FakeLock();
        lock.acquireResults.add(false);
        lock.acquireResults.add(false);
        lock.holder = new LivenessLock.LockHolder("backend 42 (psql from a local socket)", false);
        connector.next.put(() -> lock);
        RelayLiveness l = start(Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(10)).until(l::holdsLock);
        assertEquals(1, l.refused());
    }

    @Test
    void aLockHeldByAnotherLivenessSessionIsInUseAtOnce() throws Exception {
        FakeLock lock = new FakeLock();
        lock.refuseForever = true;
        lock.holder = new LivenessLock.LockHolder("backend 42 (outbox-relay-liveness from 10.0.0.7)", true);
        connector.next.put(() -> lock);
        RelayLiveness l = start(Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(10)).until(() -> l.refused() >= 1);
        assertTrue(l.health().contains("in use"), l.health());
        assertFalse(l.holdsLock());
        assertFalse(gate.isOpen());
    }

    @Test
    void anErrorThrownByTheSweepIsCountedAndTheNextSweepRuns() throws Exception {
        AtomicInteger sweepCalls = new AtomicInteger();
        connector.next.put(FakeLock::new);
        liveness = new RelayLiveness(
                new LivenessConfig(
                        true, Duration.ofMillis(20), Duration.ofSeconds(10), Duration.ofDays(1), Duration.ZERO),
                connector,
                "relay-fake",
                new QuietRegistry() {
                    @Override
                    public List<OutboxMapper.StaleLease> releaseDeadRelays(
                            String self, Duration grace, int limit, int maxAttempts) {
                        if (sweepCalls.incrementAndGet() == 1) {
                            throw new StackOverflowError("injected: the first sweep throws an Error");
                        }
                        return List.of();
                    }
                },
                gate,
                () -> {},
                new ExponentialBackoff(Duration.ofMillis(10), Duration.ofMillis(50)),
                5,
                meters);
        liveness.start();
        // a sweep that completes after the one that threw: the scheduler still runs it
        await().atMost(Duration.ofSeconds(10)).until(() -> liveness.sweeps() >= 2);
        assertTrue(sweepCalls.get() >= 3, "calls " + sweepCalls.get());
        assertEquals(1.0, errors());
        assertTrue(liveness.holdsLock(), "the holder is not affected");
    }

    @Test
    void aRelayJudgesOthersOnlyOnceItHasHeldItsOwnLockForTheGrace() throws Exception {
        AtomicInteger sweepCalls = new AtomicInteger();
        connector.next.put(FakeLock::new);
        liveness = new RelayLiveness(
                new LivenessConfig(
                        true,
                        Duration.ofMillis(20),
                        Duration.ofSeconds(10),
                        Duration.ofDays(1),
                        Duration.ofMillis(600)),
                connector,
                "relay-fake",
                new QuietRegistry() {
                    @Override
                    public List<OutboxMapper.StaleLease> releaseDeadRelays(
                            String self, Duration grace, int limit, int maxAttempts) {
                        sweepCalls.incrementAndGet();
                        return List.of();
                    }
                },
                gate,
                () -> {},
                new ExponentialBackoff(Duration.ofMillis(10), Duration.ofMillis(50)),
                5,
                meters);
        long started = System.nanoTime();
        liveness.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> sweepCalls.get() >= 1);
        long firstSweep = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        // after a failover every peer's lock is free until it reconnects: a relay that has just taken its
        // own lock gives them the grace first
        assertTrue(firstSweep >= 600, "first sweep " + firstSweep + " ms after start, before the grace");
    }

    /** Hands out the sessions the test puts in {@link #next}, one per connect, waiting for the next one. */
    private static final class Connector implements Supplier<LivenessLock> {
        final LinkedBlockingQueue<Supplier<LivenessLock>> next = new LinkedBlockingQueue<>();

        @Override
        public LivenessLock get() {
            try {
                return next.take().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DataAccessException("interrupted while connecting", e);
            }
        }
    }

    private static final class FakeLock implements LivenessLock {
        final Deque<Boolean> acquireResults = new ArrayDeque<>();
        final AtomicInteger acquireCalls = new AtomicInteger();
        volatile boolean refuseForever;
        volatile Runnable onHeartbeat = () -> {};
        volatile LockHolder holder = LockHolder.nobody();
        volatile boolean closed;

        @Override
        public synchronized boolean tryAcquire() {
            acquireCalls.incrementAndGet();
            if (refuseForever) {
                return false;
            }
            Boolean next = acquireResults.poll();
            return next == null || next;
        }

        @Override
        public void recordIncarnation(String host, long pid, Instant startedAt) {}

        @Override
        public boolean heartbeat() {
            onHeartbeat.run();
            return true;
        }

        @Override
        public LockHolder holder() {
            return holder;
        }

        @Override
        public int lockKey() {
            return 7;
        }

        @Override
        public int backendPid() {
            return 4242;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** No other relays, no rows: the sweep and the take-back find nothing. */
    private static class QuietRegistry extends RelayRegistry {
        QuietRegistry() {
            super(null);
        }

        @Override
        public List<OutboxMapper.StaleLease> releaseDeadRelays(
                String self, Duration grace, int limit, int maxAttempts) {
            return List.of();
        }

        @Override
        public List<OutboxMapper.StaleLease> takeBackOwn(String relayId, int limit, int maxAttempts) {
            return List.of();
        }

        @Override
        public List<String> forgetDead(Duration after) {
            return List.of();
        }
    }
}
