package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.MessageContext;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.Topology;
import dev.outbox.relay.cdc.CdcTestSupport;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two relay processes in CDC mode on one slot: one reads, the other stands by. SIGKILL the reader
 * (its socket closes, the walsender ends, the slot is free) and the standby takes over; every row,
 * those written while nobody read included, is published. Prints the takeover time.
 */
class CdcStandbyIT {
    private static final String SLOT = "outbox_standby_it";
    private static final Pattern READS = Pattern.compile("reads replication slot " + SLOT);

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create();

    private final TestResources closing = fx.resources();

    @BeforeEach
    void clean() {
        CdcTestSupport.freshStart(fx.db, fx.broker, SLOT);
    }

    @AfterEach
    void close() throws Exception {
        closing.closeAll();
        CdcTestSupport.awaitUnreadAndDrop(fx.db, SLOT);
    }

    private JavaProcess relay(String id) throws java.io.IOException {
        JavaProcess p = JavaProcess.start(
                "cdc-" + id,
                RelayMain.class.getName(),
                fx.env(
                        "OUTBOX_RELAY_ID",
                        id,
                        "OUTBOX_RELAY_MODE",
                        "cdc",
                        "OUTBOX_RELAY_CDC_SLOT",
                        SLOT,
                        "OUTBOX_RELAY_CDC_STANDBY_RETRY",
                        "200ms",
                        "OUTBOX_RELAY_HTTP_PORT",
                        "-1"));
        closing.add(p);
        return p;
    }

    @Test
    void theStandbyTakesTheSlotOverWhenTheReaderIsKilled() throws Exception {
        RecordingQueue queue = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#");
        closing.add(queue);
        JavaProcess a = relay("cdc-a");
        a.awaitOutput(READS, Duration.ofSeconds(60));
        JavaProcess b = relay("cdc-b");
        b.awaitOutput(Pattern.compile("relay cdc-b running"), Duration.ofSeconds(60));
        assertEquals(
                1L,
                fx.db.count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active", SLOT),
                "one reader");
        List<NewOutboxMessage> before = fx.placeAndCapture(MessageContext.none());
        queue.await(before.size(), Duration.ofSeconds(30));
        assertTrue(!b.output().contains("reads replication slot"), "b stood by while a read:\n" + b.output());

        long killed = System.nanoTime();
        a.kill();
        List<NewOutboxMessage> meanwhile = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            meanwhile.addAll(fx.placeAndCapture(MessageContext.none()));
        }
        b.awaitOutput(READS, Duration.ofSeconds(30));
        long tookOver = System.nanoTime() - killed;
        Set<String> seen = new HashSet<>();
        Set<String> expected = new HashSet<>();
        meanwhile.forEach(m -> expected.add(m.id().toString()));
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            queue.drain().forEach(r -> seen.add(r.messageId()));
            return seen.containsAll(expected);
        });
        long published = System.nanoTime() - killed;
        System.out.printf(
                "[cdc-standby] SIGKILL of the reader -> standby reads the slot: %d ms; -> all %d rows written"
                        + " meanwhile delivered: %d ms%n",
                tookOver / 1_000_000, expected.size(), published / 1_000_000);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> fx.countByStatus("PUBLISHED") == before.size() + meanwhile.size());
        assertTrue(tookOver < Duration.ofSeconds(10).toNanos(), "took over in " + tookOver / 1_000_000 + " ms");
    }
}
