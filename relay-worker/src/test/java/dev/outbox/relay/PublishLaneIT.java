package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.Topology;
import dev.outbox.messaging.publish.PublishSpans;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lane's suspects (messages in flight when a destination error closed their channel) against
 * the real broker and database: kept while the broker is away, then each published alone on a
 * channel of its own, so that the guilty one is parked with its own code and the innocent ones
 * are confirmed and recorded; nothing is handed back twice. The lane's claim gate stays closed,
 * so what the lane does here is isolation and nothing else.
 */
class PublishLaneIT {
    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().topology();

    private final TestResources closing = fx.resources();

    @Test
    void suspectsAreKeptWhileTheBrokerIsAwayThenEachIsPublishedAloneAndOnlyTheGuiltyOneParked() throws Exception {
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "lane.#");
        closing.add(wire);
        UUID good1 = fx.insertRaw("lane.step", "lane.good", Topology.ORDERS_EXCHANGE, "{\"n\":1}");
        UUID missing = fx.insertRaw("lane.step", "lane.lost", "lane.no-such-exchange", "{\"n\":2}");
        UUID good2 = fx.insertRaw("lane.step", "lane.good", Topology.ORDERS_EXCHANGE, "{\"n\":3}");
        UUID tooLong = fx.insertRaw("lane.step", "k".repeat(256), Topology.ORDERS_EXCHANGE, "{\"n\":4}");
        OutboxStore store = fx.store();
        // lane.step has no contract: json-only lets its rows meet the broker, as the test means
        RelayConfig config = RelayConfig.from(new Settings(Map.of("OUTBOX_RELAY_UNREGISTERED_TYPES", "json-only")))
                .withRelayId("lane-it");
        List<OutboxRecord> leased = store.claim("lane-it", 10, Set.of());
        assertEquals(4, leased.size());

        RelayStats stats = new RelayStats();
        OutcomeRecorder recorder = new OutcomeRecorder("lane-it", store, stats, 100, () -> {});
        recorder.start();
        closing.add(() -> recorder.stopAndFlush(Duration.ofSeconds(5)));
        BrokerSession session = new BrokerSession(
                BrokerConfig.of(TestBroker.get().uri(), "lane-it"),
                new ExponentialBackoff(Duration.ofMillis(50), Duration.ofMillis(200)),
                connection -> {});
        closing.add(session);
        ClaimGate gate = new ClaimGate();
        gate.close("this test isolates suspects only");
        PublishLane lane = new PublishLane(
                0,
                config,
                store,
                session,
                recorder,
                new BackoffPolicy(config.backoff()),
                stats,
                new Wakeup(),
                null,
                gate,
                PublishSpans.OFF);
        for (OutboxRecord row : leased) {
            lane.suspect(row, ErrorCode.EXCHANGE_NOT_FOUND, "channel closed 404 with " + leased.size() + " in flight");
        }
        lane.start();
        closing.add(() -> {
            lane.requestStop();
            lane.awaitExit(Duration.ofSeconds(5));
        });

        // the session has not connected yet: the suspects wait, in flight, none decided, for as
        // long as the broker stays away (here: half a second, watched the whole time)
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(2))
                .until(() -> !session.isAvailable() && fx.count("status = 'IN_PROGRESS'") == 4);

        session.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> fx.count("status = 'IN_PROGRESS'") == 0);
        assertEquals("PUBLISHED", fx.status(good1));
        assertEquals("PUBLISHED", fx.status(good2));
        assertEquals("PARKED", fx.status(missing));
        assertEquals(
                "EXCHANGE_NOT_FOUND", fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", missing));
        assertEquals("PARKED", fx.status(tooLong));
        assertEquals("UNENCODABLE", fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", tooLong));
        List<String> delivered = wire.await(2, Duration.ofSeconds(10)).stream()
                .map(TestBroker.Received::messageId)
                .sorted()
                .toList();
        assertEquals(
                List.of(good1.toString(), good2.toString()).stream().sorted().toList(), delivered);
        assertTrue(lane.abandon().isEmpty(), "every suspect was decided once: nothing is left to hand back");
    }
}
