package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.testkit.TestDatabase;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Suspects (rows given back because the relay holding them died) against real PostgreSQL: ordinary
 * claims never take them, a relay takes one only while it holds nothing else, in per-aggregate
 * order, and the versions after a suspect wait for it.
 */
class SuspectClaimIT {
    @RegisterExtension
    static final StoreHarness STORE = new StoreHarness("suspect-claim-it", 4);

    private static final TestDatabase DB = StoreHarness.DB;
    private static OutboxStore store;

    @BeforeAll
    static void start() {
        store = STORE.get(OutboxStore.class);
    }

    /** A row of aggregate {@code aggregate} at {@code version}, as a dead relay's sweep leaves it when suspect. */
    private static UUID row(String aggregate, long version, boolean suspect) {
        UUID id = UUID.randomUUID();
        DB.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload, last_error_code, created_at)"
                        + " VALUES (?, 'order', ?, ?, 'order.created', 'orders.events', 'order.created', '{}'::jsonb, ?,"
                        + " clock_timestamp())",
                id,
                aggregate,
                version,
                suspect ? "RELAY_DIED" : null);
        return id;
    }

    @Test
    void ordinaryClaimsSkipSuspectsAndTheVersionsBehindThem() {
        UUID suspect = row("a", 1, true);
        row("a", 2, false);
        UUID other = row("b", 1, false);
        assertTrue(store.hasDueSuspects(Set.of()));
        assertEquals(
                List.of(other),
                store.claim("relay-a", 100, Set.of()).stream()
                        .map(OutboxRecord::id)
                        .toList(),
                "the suspect is left for a claim of its own, and version 2 of its aggregate waits for it");
        assertEquals("PENDING", DB.scalar("SELECT status FROM message_outbox WHERE id = ?", suspect));
    }

    @Test
    void aSuspectIsClaimedOnlyByARelayThatHoldsNothingElseAndOneAtATime() {
        UUID first = row("a", 1, true);
        UUID second = row("b", 1, true);
        row("c", 1, false);
        List<OutboxRecord> batch = store.claim("relay-a", 100, Set.of());
        assertEquals(1, batch.size());
        assertEquals(Optional.empty(), store.claimSuspect("relay-a", Set.of(), false), "relay-a holds a row");

        Optional<OutboxRecord> alone = store.claimSuspect("relay-b", Set.of(), false);
        assertEquals(Optional.of(first), alone.map(OutboxRecord::id), "the oldest suspect");
        assertEquals(1, alone.get().attemptCount(), "the claim counts the attempt, as every claim does");
        assertEquals(Optional.empty(), store.claimSuspect("relay-b", Set.of(), false), "one at a time");

        store.markPublished("relay-b", List.of(alone.get().lease()));
        assertEquals(
                Optional.of(second),
                store.claimSuspect("relay-b", Set.of(), false).map(OutboxRecord::id));
    }

    @Test
    void suspectsOfOneAggregateAreClaimedInVersionOrder() {
        UUID v1 = row("a", 1, true);
        UUID v2 = row("a", 2, true);
        // version 2 was due first (given back earlier, say): the oldest due suspect, were order ignored
        DB.update("UPDATE message_outbox SET next_attempt_at = now() - interval '1 minute' WHERE id = ?", v2);
        OutboxRecord first = store.claimSuspect("relay-a", Set.of(), false).orElseThrow();
        assertEquals(v1, first.id(), "version 1 first, although version 2 was due earlier");
        store.markPublished("relay-a", List.of(first.lease()));
        assertEquals(
                Optional.of(v2), store.claimSuspect("relay-a", Set.of(), false).map(OutboxRecord::id));
    }

    @Test
    void aSuspectBehindAParkedVersionIsNotDue() {
        UUID parked = row("a", 1, false);
        DB.update("UPDATE message_outbox SET status = 'PARKED', last_error_code = 'UNROUTABLE' WHERE id = ?", parked);
        row("a", 2, true);
        assertFalse(store.hasDueSuspects(Set.of()), "nothing a relay could claim: no reason to pause its lanes");
        assertEquals(Optional.empty(), store.claimSuspect("relay-a", Set.of(), false));
    }
}
