package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.persistence.ConcurrencyConflictException;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DatabaseUnavailableException;
import dev.outbox.persistence.outbox.ErrorCode;
import dev.outbox.persistence.outbox.Failure;
import dev.outbox.persistence.outbox.Lease;
import dev.outbox.persistence.outbox.OutboxRecord;
import dev.outbox.persistence.outbox.OutboxStatus;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The recorder's batching and error handling against a fake store that fences like the real one
 * (a row takes one outcome; a second write of it changes nothing): which outcomes are written,
 * retried, isolated or given up when a statement fails. What PostgreSQL itself decides is in
 * {@link OutcomeRecorderIT}.
 */
class OutcomeRecorderTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final FencingStore store = new FencingStore();
    private final RelayStats stats = new RelayStats();
    private OutcomeRecorder recorder;

    @AfterEach
    void stop() throws InterruptedException {
        if (recorder != null) {
            recorder.stopAndFlush(Duration.ofSeconds(5));
        }
    }

    private OutcomeRecorder start() {
        recorder = new OutcomeRecorder("relay-test", store, stats, 1_000, () -> { });
        return recorder;
    }

    private static final AtomicLong TOKENS = new AtomicLong();

    static OutboxRecord leased() {
        Instant now = Instant.now();
        return new OutboxRecord(UUID.randomUUID(), "order", UUID.randomUUID().toString(), null, "test.recorded", 1,
                "orders.events", "test.recorded", "{}", "{}", OutboxStatus.IN_PROGRESS, 1, now, null, null, now, now,
                "relay-test", TOKENS.incrementAndGet(), null, null, null, null, null);
    }

    private static OutcomeRecorder.Outcome published(OutboxRecord row) {
        return new OutcomeRecorder.Published(row, 1_000);
    }

    private static OutcomeRecorder.Outcome failed(OutboxRecord row) {
        return new OutcomeRecorder.Failed(row, Failure.retry(row.lease(), ErrorCode.NACKED, "nack", Duration.ZERO));
    }

    private static OutcomeRecorder.Outcome released(OutboxRecord row) {
        return new OutcomeRecorder.Released(row, null, null);
    }

    /** Adds every outcome before the recorder runs, so that they form one batch. */
    private void addAllThenStart(List<OutcomeRecorder.Outcome> outcomes) {
        OutcomeRecorder r = start();
        outcomes.forEach(r::add);
        r.start();
    }

    @Test
    void aTransientFailureAfterACommittedStatementRetriesOnlyWhatDidNotCommit() {
        List<OutcomeRecorder.Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            outcomes.add(published(leased()));
            outcomes.add(failed(leased()));
            outcomes.add(released(leased()));
        }
        // PUBLISHED commits, then the connection drops under the next statement, once
        store.failNext("recordFailures", new DatabaseUnavailableException("connection reset", null));
        addAllThenStart(outcomes);

        await().atMost(WAIT).until(() -> store.recorded().size() == outcomes.size());
        assertEquals(1, store.calls("markPublished"), "the committed marks were not written again");
        assertEquals(2, store.calls("recordFailures"), "the failed statement was retried");
        assertEquals(0, stats.lostLeases(), "no committed outcome came back as a lost lease");
        assertEquals(1, stats.markFailures(true));
        assertEquals(0, stats.outcomesUnrecorded());
    }

    @Test
    void aPermanentErrorOnOneRowIsIsolatedAndEveryOtherOutcomeIsWritten() {
        List<OutcomeRecorder.Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            outcomes.add(i % 2 == 0 ? published(leased()) : failed(leased()));
        }
        OutboxRecord poison = outcomes.get(17).row();
        store.refuse(poison.id(), new DataAccessException("database error (22021): invalid byte sequence", null));
        addAllThenStart(outcomes);

        await().atMost(WAIT).until(() -> store.recorded().size() == outcomes.size() - 1);
        await().atMost(WAIT).until(() -> stats.outcomesUnrecorded() == 1);
        assertTrue(!store.recorded().containsKey(poison.id()), "the refused row keeps its lease");
        assertEquals(0, stats.lostLeases());
        assertTrue(stats.markFailures(false) >= 2, "the batch, then the parts holding the row, failed");

        // and later outcomes are not blocked behind it
        OutboxRecord later = leased();
        recorder.add(published(later));
        await().atMost(WAIT).until(() -> store.recorded().containsKey(later.id()));
    }

    @Test
    void aPermanentErrorAfterACommittedStatementIsolatesOnlyWhatDidNotCommit() {
        List<OutcomeRecorder.Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            outcomes.add(published(leased()));
        }
        OutboxRecord poison = leased();
        outcomes.add(failed(poison));
        outcomes.add(failed(leased()));
        store.refuse(poison.id(), new DataAccessException("database error (22021)", null));
        addAllThenStart(outcomes);

        await().atMost(WAIT).until(() -> store.recorded().size() == outcomes.size() - 1);
        await().atMost(WAIT).until(() -> stats.outcomesUnrecorded() == 1);
        assertEquals(1, store.calls("markPublished"), "the committed marks were not written again");
        assertEquals(0, stats.lostLeases());
    }

    @Test
    void anUnexpectedExceptionKeepsTheOutcomesAndWritesThemOnTheNextTry() {
        List<OutcomeRecorder.Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            outcomes.add(published(leased()));
        }
        store.failNext("markPublished", new IllegalStateException("a bug, or a pool closed under us"));
        addAllThenStart(outcomes);

        await().atMost(WAIT).until(() -> store.recorded().size() == outcomes.size());
        assertEquals(0, stats.outcomesUnrecorded(), "nothing given up for one surprise");
        assertEquals(1, stats.markFailures(false));
    }

    @Test
    void aDatabaseOutageIsWaitedOutWithEveryOutcomeKept() {
        List<OutcomeRecorder.Outcome> outcomes = List.of(published(leased()), failed(leased()), released(leased()));
        for (int i = 0; i < 3; i++) {
            store.failNext("markPublished", new ConcurrencyConflictException("40P01", null));
        }
        addAllThenStart(outcomes);

        await().atMost(WAIT).until(() -> store.recorded().size() == outcomes.size());
        assertEquals(3, stats.markFailures(true));
        assertEquals(0, stats.outcomesUnrecorded(), "a transient error never gives an outcome up");
    }

    /**
     * Remembers the one outcome each row took; a row already decided is fenced out, as the real
     * statements' {@code status = 'IN_PROGRESS' AND lease_token = ?} do. Failures are injected per
     * call or per row.
     */
    static final class FencingStore extends OutboxStore {
        private final Map<UUID, String> recorded = new ConcurrentHashMap<>();
        private final Map<String, List<RuntimeException>> nextFailures = new ConcurrentHashMap<>();
        private final Map<UUID, RuntimeException> refused = new ConcurrentHashMap<>();
        private final Map<String, AtomicLong> calls = new ConcurrentHashMap<>();

        FencingStore() {
            super(null);
        }

        void failNext(String method, RuntimeException e) {
            nextFailures.computeIfAbsent(method, k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(e);
        }

        /** Every statement that includes this row fails with {@code e} and changes nothing. */
        void refuse(UUID id, RuntimeException e) {
            refused.put(id, e);
        }

        Map<UUID, String> recorded() {
            return recorded;
        }

        long calls(String method) {
            AtomicLong n = calls.get(method);
            return n == null ? 0 : n.get();
        }

        private Set<UUID> apply(String method, Collection<Lease> leases, String outcome) {
            calls.computeIfAbsent(method, k -> new AtomicLong()).incrementAndGet();
            List<RuntimeException> pending = nextFailures.get(method);
            if (pending != null && !pending.isEmpty()) {
                throw pending.remove(0);
            }
            Predicate<Lease> bad = l -> refused.containsKey(l.id());
            for (Lease l : leases) {
                if (bad.test(l)) {
                    throw refused.get(l.id());
                }
            }
            Set<UUID> changed = new HashSet<>();
            for (Lease l : leases) {
                if (recorded.putIfAbsent(l.id(), outcome) == null) {
                    changed.add(l.id());
                }
            }
            return changed;
        }

        @Override
        public Set<UUID> markPublished(String relayId, Collection<Lease> leases) {
            return apply("markPublished", leases, "PUBLISHED");
        }

        @Override
        public Set<UUID> recordFailures(String relayId, Collection<Failure> failures) {
            return apply("recordFailures", failures.stream().map(Failure::lease).toList(), "FAILED");
        }

        @Override
        public Set<UUID> release(String relayId, Collection<Lease> leases, ErrorCode reason, String detail) {
            return apply("release", leases, "RELEASED");
        }
    }
}
