package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.Lease;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.persistence.outbox.Failure;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.testkit.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The relay's SQL against real PostgreSQL: claim, lease fencing, release, stale-lock recovery. */
class OutboxStoreIT {
    @RegisterExtension
    static final StoreHarness STORE = new StoreHarness("outbox-store-it", 8);

    private static final TestDatabase DB = StoreHarness.DB;
    private static OutboxStore store;

    @BeforeAll
    static void start() {
        store = STORE.get(OutboxStore.class);
    }

    static UUID insertRow(String status, String nextAttempt) {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload, status, next_attempt_at, last_error_code, cancelled_at) VALUES (?, 'order', ?,"
                        + " 'order.created', 'orders.events', 'order.created', '{\"a\":1}'::jsonb, ?, now() + ?::interval, ?,"
                        + " CASE WHEN ? = 'CANCELLED' THEN now() END)",
                id,
                UUID.randomUUID().toString(),
                status,
                nextAttempt,
                status.equals("PENDING") || status.equals("PUBLISHED") ? null : "NACKED",
                status);
        if (status.equals("PUBLISHED")) {
            DB.update("UPDATE message_outbox SET published_at = now() WHERE id = ?", id);
        }
        return id;
    }

    @Test
    void claimTakesOnlyDuePendingAndRetryableRows() {
        UUID pending = insertRow("PENDING", "0 seconds");
        UUID retryable = insertRow("RETRYABLE_FAILED", "-1 seconds");
        insertRow("PENDING", "1 hour");
        insertRow("RETRYABLE_FAILED", "10 minutes");
        insertRow("PARKED", "-1 hour");
        insertRow("CANCELLED", "-1 hour");
        // PUBLISHED needs published_at; insert it pending, then publish it
        UUID published = insertRow("PENDING", "1 hour");
        DB.update("UPDATE message_outbox SET status = 'PUBLISHED', published_at = now() WHERE id = ?", published);

        List<OutboxRecord> claimed = store.claim("relay-a", 100);

        assertEquals(Set.of(pending, retryable), ids(claimed));
        for (OutboxRecord r : claimed) {
            assertEquals(OutboxStatus.IN_PROGRESS.name(), r.status());
            assertEquals("relay-a", r.lockedBy());
            assertNotNull(r.lockedAt());
            assertNotNull(r.leaseToken());
            assertEquals(1, r.attemptCount());
        }
        assertEquals(List.of(), store.claim("relay-b", 100), "leased rows are not claimable");
    }

    @Test
    void claimRespectsTheLimitAndDueOrder() {
        UUID first = insertRow("PENDING", "-3 seconds");
        UUID second = insertRow("PENDING", "-2 seconds");
        insertRow("PENDING", "-1 seconds");
        List<OutboxRecord> claimed = store.claim("relay-a", 2);
        assertEquals(
                List.of(first, second), claimed.stream().map(OutboxRecord::id).toList());
    }

    @Test
    void concurrentRelaysNeverClaimTheSameRow() throws Exception {
        int rows = 2_000;
        DB.update(
                "INSERT INTO message_outbox (aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                        + " payload) SELECT 'order', g::text, 'order.created', 'orders.events', 'order.created', '{}'::jsonb"
                        + " FROM generate_series(1, ?) g",
                rows);
        int relays = 4;
        CyclicBarrier start = new CyclicBarrier(relays);
        Map<UUID, String> owner = new ConcurrentHashMap<>();
        List<String> doubles = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(relays);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < relays; i++) {
            String relay = "relay-" + i;
            Callable<Integer> claimer = () -> {
                start.await();
                int total = 0;
                List<OutboxRecord> batch;
                while (!(batch = store.claim(relay, 37)).isEmpty()) {
                    for (OutboxRecord r : batch) {
                        String previous = owner.putIfAbsent(r.id(), relay);
                        if (previous != null) {
                            doubles.add(r.id() + " by " + previous + " and " + relay);
                        }
                    }
                    total += batch.size();
                }
                return total;
            };
            results.add(pool.submit(claimer));
        }
        int sum = 0;
        List<Integer> perRelay = new ArrayList<>();
        for (Future<Integer> f : results) {
            int n = f.get();
            perRelay.add(n);
            sum += n;
        }
        pool.shutdown();
        assertEquals(List.of(), doubles);
        assertEquals(rows, sum);
        assertEquals(rows, owner.size());
        assertEquals(rows, DB.count("SELECT count(*) FROM message_outbox WHERE status = 'IN_PROGRESS'"));
        assertTrue(perRelay.stream().filter(n -> n > 0).count() > 1, "work was shared: " + perRelay);
    }

    @Test
    void markPublishedIsFencedByRelayAndLeaseToken() {
        insertRow("PENDING", "0 seconds");
        insertRow("PENDING", "0 seconds");
        List<OutboxRecord> claimed = store.claim("relay-a", 10);
        Lease a = claimed.get(0).lease();
        Lease b = claimed.get(1).lease();

        assertEquals(Set.of(), store.markPublished("relay-b", List.of(a)), "another relay's lease");
        assertEquals(
                Set.of(),
                store.markPublished("relay-a", List.of(new Lease(a.id(), a.token() + 1000))),
                "a token from another claim");
        assertEquals(Set.of(a.id()), store.markPublished("relay-a", List.of(a, new Lease(b.id(), -1))));

        OutboxRecord published = store.find(a.id()).orElseThrow();
        assertEquals(OutboxStatus.PUBLISHED.name(), published.status());
        assertNotNull(published.publishedAt());
        assertNull(published.lockedBy());
        assertNull(published.leaseToken());
        assertEquals(
                OutboxStatus.IN_PROGRESS.name(),
                store.find(b.id()).orElseThrow().status());
        assertEquals(Set.of(), store.markPublished("relay-a", List.of(a)), "already published: not leased any more");
    }

    /**
     * Marks find their rows by token ({@code lease_token = ANY(...)}): that is only a fence because
     * a token names one lease of one row, which the database enforces.
     */
    @Test
    void aLeaseTokenBelongsToOneLeasedRowOnly() {
        insertRow("PENDING", "0 seconds");
        insertRow("PENDING", "0 seconds");
        List<OutboxRecord> claimed = store.claim("relay-a", 10);
        assertEquals(2, claimed.size());
        assertTrue(claimed.get(0).leaseToken() != claimed.get(1).leaseToken().longValue(), "one token per row");
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> DB.update(
                        "UPDATE message_outbox SET lease_token = ? WHERE id = ?",
                        claimed.get(0).leaseToken(),
                        claimed.get(1).id()));
        assertTrue(String.valueOf(e.getCause().getMessage()).contains("message_outbox_lease_idx"), e.toString());
    }

    @Test
    void failuresAreRecordedWithCodeMessageAndBackoff() {
        insertRow("PENDING", "0 seconds");
        insertRow("PENDING", "0 seconds");
        List<OutboxRecord> claimed = store.claim("relay-a", 10);
        Lease retry = claimed.get(0).lease();
        Lease park = claimed.get(1).lease();

        Set<UUID> changed = store.recordFailures(
                "relay-a",
                List.of(
                        Failure.retry(retry, ErrorCode.CONFIRM_TIMEOUT, "no confirm in 10s", Duration.ofSeconds(60)),
                        Failure.park(park, ErrorCode.UNROUTABLE, "312 NO_ROUTE")));

        assertEquals(Set.of(retry.id(), park.id()), changed);
        OutboxRecord r = store.find(retry.id()).orElseThrow();
        assertEquals(OutboxStatus.RETRYABLE_FAILED.name(), r.status());
        assertEquals(ErrorCode.CONFIRM_TIMEOUT.name(), r.lastErrorCode());
        assertEquals("no confirm in 10s", r.lastErrorMessage());
        assertNull(r.lockedBy());
        double delay = ((Number) DB.scalar(
                        "SELECT extract(epoch FROM next_attempt_at - now()) FROM message_outbox" + " WHERE id = ?",
                        retry.id()))
                .doubleValue();
        assertTrue(delay > 50 && delay <= 60, "due again in about a minute, was " + delay);
        OutboxRecord p = store.find(park.id()).orElseThrow();
        assertEquals(OutboxStatus.PARKED.name(), p.status());
        assertEquals(ErrorCode.UNROUTABLE.name(), p.lastErrorCode());
        assertEquals(List.of(), store.claim("relay-a", 10), "neither is due");
    }

    @Test
    void releaseGivesRowsBackDueNowWithoutCountingTheAttempt() {
        UUID id = insertRow("PENDING", "0 seconds");
        Lease lease = store.claim("relay-a", 10).get(0).lease();
        assertEquals(Set.of(id), store.release("relay-a", List.of(lease), null, null));
        OutboxRecord r = store.find(id).orElseThrow();
        assertEquals(OutboxStatus.PENDING.name(), r.status());
        assertEquals(0, r.attemptCount());
        assertEquals(1, store.claim("relay-b", 10).size());
    }

    @Test
    void releaseCanRecordWhyTheRowWasNotSent() {
        UUID id = insertRow("PENDING", "0 seconds");
        Lease lease = store.claim("relay-a", 10).get(0).lease();
        store.release("relay-a", List.of(lease), ErrorCode.BROKER_UNAVAILABLE, "connection refused");
        OutboxRecord r = store.find(id).orElseThrow();
        assertEquals(OutboxStatus.PENDING.name(), r.status(), "never attempted, so still pending");
        assertEquals(0, r.attemptCount());
        assertEquals(ErrorCode.BROKER_UNAVAILABLE.name(), r.lastErrorCode());
        assertEquals("connection refused", r.lastErrorMessage());
    }

    @Test
    void staleLeasesGoBackToRetryAndTheLateOwnerIsFencedOut() {
        UUID id = insertRow("PENDING", "0 seconds");
        Lease stale = store.claim("relay-a", 10).get(0).lease();
        DB.update("UPDATE message_outbox SET locked_at = now() - interval '10 minutes' WHERE id = ?", id);

        List<OutboxMapper.StaleLease> released = store.releaseStaleLocks(Duration.ofMinutes(2), 5, 100);

        assertEquals(
                List.of(new OutboxMapper.StaleLease(id, "relay-a", OutboxStatus.RETRYABLE_FAILED.name())), released);
        OutboxRecord r = store.find(id).orElseThrow();
        assertEquals(ErrorCode.STALE_LOCK.name(), r.lastErrorCode());
        Lease fresh = store.claim("relay-b", 10).get(0).lease();
        assertTrue(fresh.token() > stale.token(), "fencing tokens only grow");
        assertEquals(Set.of(), store.markPublished("relay-a", List.of(stale)), "late mark refused");
        assertEquals(Set.of(id), store.markPublished("relay-b", List.of(fresh)));
    }

    @Test
    void aRowThatKeepsGoingStaleIsParkedOnceItsAttemptsAreSpent() {
        UUID id = insertRow("PENDING", "0 seconds");
        store.claim("relay-a", 10);
        DB.update(
                "UPDATE message_outbox SET attempt_count = 5, locked_at = now() - interval '1 hour' WHERE id = ?", id);
        List<OutboxMapper.StaleLease> released = store.releaseStaleLocks(Duration.ofMinutes(2), 5, 100);
        assertEquals(OutboxStatus.PARKED.name(), released.get(0).status());
    }

    @Test
    void freshLeasesAreNotStale() {
        insertRow("PENDING", "0 seconds");
        store.claim("relay-a", 10);
        assertEquals(List.of(), store.releaseStaleLocks(Duration.ofMinutes(2), 5, 100));
    }

    private static Set<UUID> ids(List<OutboxRecord> rows) {
        Set<UUID> s = new HashSet<>();
        rows.forEach(r -> s.add(r.id()));
        return s;
    }
}
