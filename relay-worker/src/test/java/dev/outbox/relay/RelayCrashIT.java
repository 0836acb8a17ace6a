package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.config.Settings;
import dev.outbox.ledger.LedgerConsumerApp;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.outbox.MessageContext;
import dev.outbox.persistence.outbox.NewOutboxMessage;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The crash window between the broker's confirm and the mark, caused for real: a relay process
 * that has seen every confirm but not recorded them is killed with SIGKILL. Its leases expire,
 * another relay publishes the same message ids again, and the ledger applies each payment once.
 */
class RelayCrashIT {
    private final OutboxFixtures fx = new OutboxFixtures();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void clean() {
        fx.db.reset();
        fx.broker.declareTopicExchange(Topology.ORDERS_EXCHANGE);
        fx.broker.purgeIfExists(Topology.LEDGER_QUEUE);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        fx.close();
    }

    @Test
    void killedBetweenConfirmAndMarkThenRepublishedAndAppliedOnce() throws Exception {
        int orders = 5;
        List<NewOutboxMessage> rows = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            rows.addAll(fx.placeAndCapture(MessageContext.none()));
        }
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#");
        closing.add(wire);

        JavaProcess doomed = JavaProcess.start("relay-doomed", RelayMain.class.getName(),
                fx.env("OUTBOX_RELAY_ID", "relay-doomed", "OUTBOX_RELAY_FAULT_MARK_DELAY", "1h"));
        closing.add(doomed);
        for (NewOutboxMessage row : rows) {
            doomed.awaitOutput(Pattern.compile("holding outcome confirmed of message_id=" + row.id()),
                    Duration.ofSeconds(30));
        }
        // every message is confirmed, i.e. on disk in the ledger queue, and none is marked
        List<TestBroker.Received> all = new ArrayList<>(wire.await(rows.size(), Duration.ofSeconds(10)));
        assertEquals(rows.size(), all.size());
        doomed.kill();
        assertEquals(rows.size(), fx.db.count("SELECT count(*) FROM message_outbox WHERE status = 'IN_PROGRESS'"
                + " AND locked_by = 'relay-doomed'"));

        // the replacement relay recovers the stale leases and publishes the same ids again
        closing.add(RelayApp.start(new Settings(fx.env("OUTBOX_RELAY_ID", "relay-replacement",
                "OUTBOX_RELAY_LEASE", "3s", "OUTBOX_RELAY_CONFIRM_TIMEOUT", "1s",
                "OUTBOX_RELAY_STALE_CHECK_INTERVAL", "200ms"))));
        await().atMost(Duration.ofSeconds(30)).until(() -> fx.countByStatus("PUBLISHED") == rows.size());
        all.addAll(wire.await(rows.size(), Duration.ofSeconds(10)));
        Map<String, Long> copies = all.stream().collect(Collectors.groupingBy(TestBroker.Received::messageId,
                Collectors.counting()));
        for (NewOutboxMessage row : rows) {
            assertEquals(2L, copies.get(row.id().toString()), "published twice with the same messageId: " + row.id());
        }
        assertEquals(rows.size(), fx.db.count("SELECT count(*) FROM message_outbox WHERE last_error_code = 'STALE_LOCK'"
                + " AND attempt_count = 2"));

        // the ledger consumer receives both copies of every message and applies each payment once
        LedgerConsumerApp ledger = LedgerConsumerApp.start(new Settings(fx.env()));
        closing.add(ledger);
        await().atMost(Duration.ofSeconds(30)).until(
                () -> ledger.runner().applied() + ledger.runner().duplicates() == 2L * rows.size());
        assertEquals(rows.size(), ledger.runner().applied());
        assertEquals(rows.size(), ledger.runner().duplicates());
        assertEquals(orders, fx.db.count("SELECT count(*) FROM ledger_entries WHERE entry_type = 'CAPTURE'"));
        assertEquals(rows.size(), fx.db.count("SELECT count(*) FROM processed_messages WHERE consumer_name = 'ledger'"));
    }
}
