package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.Topology;
import dev.outbox.relay.cdc.CdcTestSupport;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A slot the server gave up on: with {@code max_slot_wal_keep_size} set, a relay fleet that is
 * down cannot make the server keep WAL for ever; past the limit a checkpoint invalidates the slot
 * ({@code wal_status = lost}). The relay that comes back says so, drops and recreates the slot, and
 * the rows committed while nobody read it, still {@code PENDING}, are published by the retry path:
 * nothing is lost, only published by polling instead of from the stream.
 */
class CdcSlotInvalidationIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String SLOT = "outbox_invalidation_it";

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create();

    private final TestResources closing = fx.resources();

    @BeforeEach
    void clean() {
        CdcTestSupport.freshStart(fx.db, fx.broker, SLOT);
        fx.db.execute("ALTER SYSTEM SET max_slot_wal_keep_size = '16MB'");
        fx.db.rows("SELECT pg_reload_conf()");
    }

    @AfterEach
    void close() throws Exception {
        closing.closeAll();
        fx.db.execute("ALTER SYSTEM RESET max_slot_wal_keep_size");
        fx.db.rows("SELECT pg_reload_conf()");
        CdcTestSupport.awaitUnreadAndDrop(fx.db, SLOT);
    }

    private RelayApp relay() {
        RelayApp app = RelayApp.start(new Settings(fx.env(
                "OUTBOX_RELAY_MODE",
                "cdc",
                "OUTBOX_RELAY_CDC_SLOT",
                SLOT,
                "OUTBOX_RELAY_CDC_TICK_INTERVAL",
                "200ms",
                "OUTBOX_RELAY_POLL_INTERVAL",
                "200ms")));
        closing.add(app);
        return app;
    }

    @Test
    void anInvalidatedSlotIsRecreatedAndWhatWasCommittedMeanwhileIsPublishedByPolling() throws Exception {
        RecordingQueue queue = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#");
        closing.add(queue);
        RelayApp first = relay();
        await().atMost(WAIT).until(() -> first.cdc().reading());
        List<NewOutboxMessage> before = fx.placeAndCapture(MessageContext.none());
        queue.await(before.size(), WAIT);
        first.close();
        closing.remove(first);

        List<NewOutboxMessage> meanwhile = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            meanwhile.addAll(fx.placeAndCapture(MessageContext.none()));
        }
        // more WAL than the slot may keep: a few segments, then checkpoints remove them
        for (int i = 0; i < 4 && !"lost".equals(walStatus()); i++) {
            fx.db.execute("CREATE TABLE IF NOT EXISTS wal_filler (b bytea)");
            fx.db.execute(
                    "INSERT INTO wal_filler SELECT decode(repeat('ab', 4096), 'hex') FROM generate_series(1, 2500)");
            fx.db.rows("SELECT pg_switch_wal()");
            fx.db.execute("CHECKPOINT");
        }
        fx.db.execute("DROP TABLE IF EXISTS wal_filler");
        assertEquals("lost", walStatus(), "the server invalidated the slot");

        RelayApp second = relay();
        Set<String> seen = new HashSet<>();
        Set<String> expected = new HashSet<>();
        meanwhile.forEach(m -> expected.add(m.id().toString()));
        await().atMost(WAIT).until(() -> {
            queue.drain().forEach(r -> seen.add(r.messageId()));
            return seen.containsAll(expected);
        });
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == before.size() + meanwhile.size());
        assertEquals(1, second.cdc().slotsRecreated());
        assertEquals(0, second.cdc().streamed(), "none of them came from the new slot's stream");
        await().atMost(WAIT).until(() -> second.cdc().reading());
        // and the new slot streams what comes next
        List<NewOutboxMessage> after = fx.placeAndCapture(MessageContext.none());
        Set<String> next = new HashSet<>();
        after.forEach(m -> next.add(m.id().toString()));
        await().atMost(WAIT).until(() -> {
            queue.drain().forEach(r -> seen.add(r.messageId()));
            return seen.containsAll(next);
        });
        assertEquals(after.size(), second.cdc().streamed());
    }

    private String walStatus() {
        return (String) fx.db.scalar(
                "SELECT coalesce((SELECT wal_status FROM pg_replication_slots WHERE slot_name = ?)," + " 'none')",
                SLOT);
    }
}
