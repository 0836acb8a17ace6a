package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.Lease;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.persistence.ConcurrencyConflictException;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.DatabaseUnavailableException;
import dev.outbox.persistence.StatementRefusedException;
import dev.outbox.persistence.outbox.Failure;
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
    /** Long enough for the backoff of {@link OutcomeRecorder#REFUSALS_BEFORE_ISOLATING} tries and more. */
    private static final Duration LONG_WAIT = Duration.ofSeconds(40);

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
        recorder = new OutcomeRecorder("relay-test", store, stats, 1_000, () -> {});
        return recorder;
    }

    private static final AtomicLong TOKENS = new AtomicLong();

    static OutboxRecord leased() {
        Instant now = Instant.now();
        return new OutboxRecord(
                UUID.randomUUID(),
                "order",
                UUID.randomUUID().toString(),
                null,
                "test.recorded",
                1,
                "orders.events",
                "test.recorded",
                "{}",
                "{}",
                OutboxStatus.IN_PROGRESS.name(),
                1,
                now,
                null,
                null,
                now,
                now,
                "relay-test",
                TOKENS.incrementAndGet(),
                null,
                null,
                null,
                null,
                null);
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

    @Test
    void anErrorThrownByAWriteIsCountedAndTheOutcomesAreWrittenOnTheNextTry() {
        List<OutcomeRecorder.Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            outcomes.add(published(leased()));
        }
        // not a RuntimeException: before the fix it ended the recorder's thread, and every outcome
        // after it piled up in the queue for ever
        store.failNext("markPublished", new AssertionError("a broken invariant in a driver or a mapper"));
        addAllThenStart(outcomes);

        await().atMost(WAIT).until(() -> store.recorded().size() == outcomes.size());
        assertEquals(1, stats.markFailures(false), "counted as an unexpected failure");
        assertEquals(0, stats.outcomesUnrecorded(), "nothing given up for one surprise");

        OutboxRecord later = leased();
        recorder.add(published(later));
        await().atMost(WAIT).until(() -> store.recorded().containsKey(later.id()));
    }

    @Test
    void aFailureAfterEveryOutcomeCommittedDoesNotEndTheRecorder() {
        AtomicLong wakeUps = new AtomicLong();
        recorder = new OutcomeRecorder("relay-test", store, stats, 1_000, () -> {
            if (wakeUps.incrementAndGet() == 1) {
                throw new AssertionError("waking the publishers failed");
            }
        });
        OutboxRecord first = leased();
        recorder.add(published(first));
        recorder.start();
        await().atMost(WAIT).until(() -> wakeUps.get() == 1);

        // the batch was already empty when it failed: nothing to keep, and nothing to isolate
        OutboxRecord later = leased();
        recorder.add(published(later));
        await().atMost(WAIT).until(() -> store.recorded().containsKey(later.id()));
        assertEquals(1, stats.markFailures(false));
        assertEquals(2, store.calls("markPublished"), "one each: the committed mark was not written again");
    }

    @Test
    void aRowWhoseMarkIsRefusedEveryTimeIsIsolatedAfterAFewTriesAndEveryOtherOutcomeIsWritten() {
        List<OutcomeRecorder.Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            outcomes.add(i % 2 == 0 ? published(leased()) : failed(leased()));
        }
        OutboxRecord slow = outcomes.get(7).row();
        // transient by kind (the API answers 503 for it), but it fails every time: the batch must
        // not be retried whole for ever
        store.refuse(
                slow.id(),
                new StatementRefusedException(
                        "statement refused (57014): canceling statement" + " due to statement timeout", null));
        addAllThenStart(outcomes);

        await().atMost(LONG_WAIT).until(() -> store.recorded().size() == outcomes.size() - 1);
        await().atMost(LONG_WAIT).until(() -> stats.outcomesUnrecorded() == 1);
        assertTrue(!store.recorded().containsKey(slow.id()), "the refused row keeps its lease");
        // the 10 PUBLISHED committed at the first try; the 10 failures were then tried whole this often
        assertEquals(
                OutcomeRecorder.REFUSALS_BEFORE_ISOLATING,
                store.sizes("recordFailures").stream().filter(n -> n == 10).count(),
                "the failed attempts were written whole this often before they were split");
        assertEquals(1, store.calls("markPublished"));
        assertEquals(0, stats.lostLeases());
    }

    @Test
    void anOutageLongerThanTheRefusalLimitIsWaitedOutWholeAndGivesNothingUp() {
        List<OutcomeRecorder.Outcome> outcomes = List.of(published(leased()), published(leased()), published(leased()));
        int failures = OutcomeRecorder.REFUSALS_BEFORE_ISOLATING + 1;
        for (int i = 0; i < failures; i++) {
            store.failNext("markPublished", new DatabaseUnavailableException("connection refused", null));
        }
        addAllThenStart(outcomes);

        await().atMost(LONG_WAIT).until(() -> store.recorded().size() == outcomes.size());
        assertEquals(failures + 1, store.calls("markPublished"), "every try wrote the whole batch: never split");
        assertEquals(failures, stats.markFailures(true));
        assertEquals(0, stats.outcomesUnrecorded(), "an unreachable database never gives an outcome up");
    }

    /**
     * Remembers the one outcome each row took; a row already decided is fenced out, as the real
     * statements' {@code status = 'IN_PROGRESS' AND lease_token = ?} do. Failures are injected per
     * call or per row.
     */
    static final class FencingStore extends OutboxStore {
        private final Map<UUID, String> recorded = new ConcurrentHashMap<>();
        private final Map<String, List<Throwable>> nextFailures = new ConcurrentHashMap<>();
        private final Map<UUID, RuntimeException> refused = new ConcurrentHashMap<>();
        private final Map<String, AtomicLong> calls = new ConcurrentHashMap<>();
        private final Map<String, List<Integer>> sizes = new ConcurrentHashMap<>();

        FencingStore() {
            super(null);
        }

        /** The next call of {@code method} throws {@code e} (a RuntimeException or an Error). */
        void failNext(String method, Throwable e) {
            nextFailures
                    .computeIfAbsent(method, k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(e);
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

        /** How many rows each call of {@code method} tried to write, in call order. */
        List<Integer> sizes(String method) {
            return sizes.getOrDefault(method, List.of());
        }

        private Set<UUID> apply(String method, Collection<Lease> leases, String outcome) {
            calls.computeIfAbsent(method, k -> new AtomicLong()).incrementAndGet();
            sizes.computeIfAbsent(method, k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(leases.size());
            List<Throwable> pending = nextFailures.get(method);
            if (pending != null && !pending.isEmpty()) {
                Throwable t = pending.remove(0);
                if (t instanceof Error e) {
                    throw e;
                }
                throw (RuntimeException) t;
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
