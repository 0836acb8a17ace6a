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
        List<NewOutboxMessage> created = new ArrayList<>();
        List<NewOutboxMessage> captured = new ArrayList<>();
        for (int i = 0; i < orders; i++) {
            List<NewOutboxMessage> rows = fx.placeAndCapture(MessageContext.none());
            created.add(rows.get(0));
            captured.add(rows.get(1));
        }
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#");
        closing.add(wire);

        // without a liveness lock, like a relay of a version before V7: its rows come back by the lease alone
        JavaProcess doomed = JavaProcess.start("relay-doomed", RelayMain.class.getName(),
                fx.env("OUTBOX_RELAY_ID", "relay-doomed", "OUTBOX_RELAY_FAULT_MARK_DELAY", "1h",
                        "OUTBOX_RELAY_LIVENESS", "false"));
        closing.add(doomed);
        // it publishes every v1 and sees every confirm; v2 must wait for v1 to be recorded, which never happens
        for (NewOutboxMessage row : created) {
            doomed.awaitOutput(Pattern.compile("holding outcome confirmed of message_id=" + row.id()),
                    Duration.ofSeconds(30));
        }
        List<TestBroker.Received> all = new ArrayList<>(wire.await(orders, Duration.ofSeconds(10)));
        assertEquals(created.stream().map(r -> r.id().toString()).sorted().toList(),
                all.stream().map(TestBroker.Received::messageId).sorted().toList(), "every v1 is on the broker");
        doomed.kill();
        assertEquals(orders, fx.db.count("SELECT count(*) FROM message_outbox WHERE status = 'IN_PROGRESS'"
                + " AND locked_by = 'relay-doomed'"), "and none of them is marked");
        assertEquals(orders, fx.count("status = 'PENDING' AND aggregate_version = 2"), "v2 was held back");

        // the replacement relay recovers the stale leases and publishes the same ids again, then v2
        closing.add(RelayApp.start(new Settings(fx.env("OUTBOX_RELAY_ID", "relay-replacement",
                "OUTBOX_RELAY_LEASE", "3s", "OUTBOX_RELAY_CONFIRM_TIMEOUT", "1s",
                "OUTBOX_RELAY_STALE_CHECK_INTERVAL", "200ms"))));
        await().atMost(Duration.ofSeconds(30)).until(() -> fx.countByStatus("PUBLISHED") == 2L * orders);
        all.addAll(wire.await(2 * orders, Duration.ofSeconds(10)));
        Map<String, Long> copies = all.stream().collect(Collectors.groupingBy(TestBroker.Received::messageId,
                Collectors.counting()));
        for (NewOutboxMessage row : created) {
            assertEquals(2L, copies.get(row.id().toString()), "published twice with the same messageId: " + row.id());
        }
        for (NewOutboxMessage row : captured) {
            assertEquals(1L, copies.get(row.id().toString()));
        }
        assertEquals(orders, fx.count("last_error_code = 'STALE_LOCK' AND attempt_count = 2"));

        // the ledger consumer receives both copies of every v1 and applies everything once
        LedgerConsumerApp ledger = LedgerConsumerApp.start(new Settings(fx.env()));
        closing.add(ledger);
        await().atMost(Duration.ofSeconds(30)).until(
                () -> ledger.runner().applied() + ledger.runner().duplicates() == 3L * orders);
        assertEquals(2L * orders, ledger.runner().applied());
        assertEquals(orders, ledger.runner().duplicates());
        assertEquals(orders, fx.db.count("SELECT count(*) FROM ledger_entries WHERE entry_type = 'CAPTURE'"));
        assertEquals(2L * orders, fx.db.count("SELECT count(*) FROM processed_messages WHERE consumer_name = 'ledger'"));
    }
}
