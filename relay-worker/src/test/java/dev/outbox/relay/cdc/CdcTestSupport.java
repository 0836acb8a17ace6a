package dev.outbox.relay.cdc;

import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.testkit.TestDatabase;
import java.util.UUID;
import javax.sql.DataSource;

/** What the CDC tests share: the server must decode logically, and rows read as polling reads them. */
public final class CdcTestSupport {
    private CdcTestSupport() {}

    /** Fails (never skips) when the test server cannot decode logically: .ci/run configures it. */
    public static void requireLogical(TestDatabase db) {
        Object level = db.scalar("SELECT current_setting('wal_level')");
        if (!"logical".equals(level)) {
            throw new IllegalStateException("the CDC tests need wal_level = logical on the test server, it has " + level
                    + ": ALTER SYSTEM SET wal_level = logical and restart PostgreSQL (.ci/run and ops/run.sh do)");
        }
    }

    /**
     * What every CDC relay test starts from: a server that decodes logically, no slot of the test's
     * name, empty tables, the orders exchange.
     */
    public static void freshStart(TestDatabase db, dev.outbox.testkit.TestBroker broker, String slot) {
        requireLogical(db);
        dropSlot(db, slot);
        db.reset();
        broker.declareTopicExchange(dev.outbox.messaging.Topology.ORDERS_EXCHANGE);
    }

    /** Drops the slot if it exists and no session reads it. */
    public static void dropSlot(TestDatabase db, String slot) {
        db.rows(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ? AND NOT active",
                slot);
    }

    /** Waits until no session reads the slot (a closed relay's walsender may take a moment), then drops it. */
    public static void awaitUnreadAndDrop(TestDatabase db, String slot) {
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(30))
                .until(() -> db.count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active", slot)
                        == 0);
        dropSlot(db, slot);
    }

    /** The row as the polling relay's mapper reads it (by the ops lookup: same columns, same types). */
    static OutboxRecord read(DataSource ds, OutboxMapper mapper, UUID id) {
        return mapper.findById(id);
    }
}
