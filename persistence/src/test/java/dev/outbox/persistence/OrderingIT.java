package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.outbox.Failure;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.testkit.TestDatabase;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Per-aggregate order in the claim, and gapless, unique versions enforced by the database. */
class OrderingIT {
    @RegisterExtension
    static final StoreHarness STORE = new StoreHarness("ordering-it", 10);

    private static final TestDatabase DB = StoreHarness.DB;
    private static OutboxStore store;

    @BeforeAll
    static void start() {
        store = STORE.get(OutboxStore.class);
    }

    static void insert(String aggregate, long version, String type) {
        DB.update(
                "INSERT INTO message_outbox (aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload) VALUES ('order', ?, ?, ?, 'orders.events', ?, '{}'::jsonb)",
                aggregate,
                version,
                type,
                type);
    }

    private static List<Long> versions(List<OutboxRecord> rows, String aggregate) {
        return rows.stream()
                .filter(r -> r.aggregateId().equals(aggregate))
                .map(OutboxRecord::aggregateVersion)
                .toList();
    }

    @Test
    void onlyTheNextVersionOfAnAggregateIsClaimableWhileDifferentAggregatesFlowTogether() {
        for (long v = 1; v <= 3; v++) {
            insert("a", v, "t");
            insert("b", v, "t");
        }
        List<OutboxRecord> first = store.claim("r1", 100);
        assertEquals(List.of(1L), versions(first, "a"));
        assertEquals(List.of(1L), versions(first, "b"));
        assertEquals(List.of(), store.claim("r2", 100), "v2 waits while v1 is in flight, for any relay");

        store.markPublished(
                "r1",
                List.of(first.stream()
                        .filter(r -> r.aggregateId().equals("a"))
                        .findFirst()
                        .orElseThrow()
                        .lease()));
        List<OutboxRecord> second = store.claim("r2", 100);
        assertEquals(List.of(2L), versions(second, "a"));
        assertEquals(List.of(), versions(second, "b"), "b is still at v1 in flight");
    }

    @Test
    void aParkedVersionBlocksOnlyItsOwnAggregate() {
        insert("blocked", 1, "t");
        insert("blocked", 2, "t");
        insert("free", 1, "t");
        OutboxRecord v1 = store.claim("r", 1).get(0);
        assertEquals("blocked", v1.aggregateId());
        store.recordFailures("r", List.of(Failure.park(v1.lease(), ErrorCode.UNROUTABLE, "312")));

        List<OutboxRecord> next = store.claim("r", 100);
        assertEquals(
                List.of("free"), next.stream().map(OutboxRecord::aggregateId).toList());
        assertEquals(1, store.blockedAggregates());

        assertEquals(Set.of(v1.id()), store.retryNow(List.of(v1.id())));
        assertEquals(List.of(1L), versions(store.claim("r", 100), "blocked"), "retried v1 goes first");
    }

    @Test
    void aCancelledVersionNoLongerBlocks() {
        insert("x", 1, "t");
        insert("x", 2, "t");
        DB.update("UPDATE message_outbox SET status = 'CANCELLED', cancelled_at = now(), last_error_code = 'OPERATOR'"
                + " WHERE aggregate_version = 1");
        assertEquals(List.of(2L), versions(store.claim("r", 100), "x"));
    }

    @Test
    void unorderedMessageTypesAreNotHeldBack() {
        insert("y", 1, "ordered");
        insert("y", 2, "audit.note");
        List<OutboxRecord> rows = store.claim("r", 100, Set.of("audit.note"));
        assertEquals(List.of(1L, 2L), versions(rows, "y"));
    }

    @Test
    void versionsMustBeGaplessAndUnique() {
        insert("g", 1, "t");
        ConstraintViolationCheck gap = () -> insert("g", 3, "t");
        assertTrue(gap.fails().getMessage().contains("does not directly follow"));
        ConstraintViolationCheck duplicate = () -> insert("g", 1, "t");
        assertTrue(duplicate.fails().getMessage().contains("does not directly follow"));
        ConstraintViolationCheck startsAtTwo = () -> insert("h", 2, "t");
        startsAtTwo.fails();
        insert("g", 2, "t");
        assertEquals(2, DB.count("SELECT count(*) FROM message_outbox WHERE aggregate_id = 'g'"));
    }

    @Test
    void versionsSurviveRetentionOfEarlierRows() {
        insert("r", 1, "t");
        DB.update("DELETE FROM message_outbox WHERE aggregate_id = 'r'");
        // the head remembers v1 though its row is gone: the next write must be v2
        assertThrows(IllegalStateException.class, () -> insert("r", 1, "t"));
        insert("r", 2, "t");
    }

    @Test
    void anAggregatesIdentityCannotBeRewritten() {
        insert("i", 1, "t");
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> DB.update("UPDATE message_outbox SET aggregate_version = 5 WHERE aggregate_id = 'i'"));
        assertTrue(
                e.getCause().getMessage().contains("cannot change"),
                e.getCause().getMessage());
        assertEquals(
                1,
                DB.update(
                        "UPDATE message_outbox SET status = 'CANCELLED', cancelled_at = now(), last_error_code = 'OPERATOR'"
                                + " WHERE aggregate_id = 'i'"),
                "other columns may change");
    }

    @FunctionalInterface
    interface ConstraintViolationCheck {
        void run();

        default Throwable fails() {
            IllegalStateException e = assertThrows(IllegalStateException.class, this::run);
            assertTrue(
                    e.getCause() instanceof java.sql.SQLException sql && "23514".equals(sql.getSQLState()),
                    "a check violation, got " + e.getCause());
            return e.getCause();
        }
    }

    @Test
    void rowsWithoutAVersionTakeNoPartInOrdering() {
        DB.update("INSERT INTO message_outbox (aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                + " payload) VALUES ('order', 'n', 't', 'orders.events', 't', '{}'), ('order', 'n', 't',"
                + " 'orders.events', 't', '{}')");
        assertEquals(2, store.claim("r", 100).size());
    }
}
