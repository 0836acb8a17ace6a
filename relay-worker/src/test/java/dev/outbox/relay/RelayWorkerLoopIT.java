package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.testkit.RecordingQueue;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A publishing lane, and the thread that publishes suspects alone, survive whatever their work
 * throws, an {@link Error} included: an ended loop would leave a relay that looks alive (its
 * process runs, its liveness lock is held) and publishes nothing, or never publishes a dead
 * relay's rows again. The surprise is counted and the loop carries on.
 */
class RelayWorkerLoopIT {
    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().exchange();

    private BrokerSession session;
    private OutboxRelay relay;

    @AfterEach
    void close() {
        if (relay != null) {
            relay.stop();
        }
        if (session != null) {
            session.close();
        }
    }

    @Test
    void anErrorThrownInAPublishingLaneIsCountedAndTheLaneCarriesOn() {
        OutboxStore real = fx.store();
        AtomicInteger claims = new AtomicInteger();
        OutboxStore throwingOnce = new OutboxStore(fx.injector.getInstance(OutboxMapper.class)) {
            @Override
            public List<OutboxRecord> claim(
                    String relayId,
                    int limit,
                    Set<String> unorderedTypes,
                    boolean fenced,
                    String cdcSlot,
                    java.util.function.Consumer<List<OutboxRecord>> beforeCommit) {
                if (claims.getAndIncrement() == 0) {
                    throw new AssertionError("injected: the first claim throws an Error");
                }
                return real.claim(relayId, limit, unorderedTypes, fenced, cdcSlot, beforeCommit);
            }
        };
        Settings settings = new Settings(fx.env("OUTBOX_RELAY_ID", "relay-survivor"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        session = new BrokerSession(
                BrokerConfig.from(settings, fx.broker.uri(), "relay-worker-loop-it"),
                new ExponentialBackoff(Duration.ofMillis(100), Duration.ofSeconds(1)),
                c -> {});
        session.start();
        relay = new OutboxRelay(RelayConfig.from(settings), throwingOnce, session, new RelayStats(registry));
        fx.placeAndCapture(MessageContext.none());
        relay.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> fx.countByStatus("PUBLISHED") == 2);
        assertEquals(
                1.0,
                registry.get("outbox.relay.unexpected.failures")
                        .tag("where", "publisher")
                        .counter()
                        .count());
    }

    @Test
    void anErrorThrownWhileLookingForSuspectsIsCountedAndSuspectsArePublishedAtTheNextLook() throws Exception {
        OutboxStore real = fx.store();
        AtomicInteger looks = new AtomicInteger();
        OutboxStore throwingOnce = new OutboxStore(fx.injector.getInstance(OutboxMapper.class)) {
            @Override
            public boolean hasDueSuspects(Set<String> unorderedTypes) {
                if (looks.getAndIncrement() == 0) {
                    throw new StackOverflowError("injected: the first look for suspects throws an Error");
                }
                return real.hasDueSuspects(unorderedTypes);
            }
        };
        // a row a dead relay held: a suspect, published only alone
        java.util.UUID suspect = fx.insertRaw("order.noted", "order.noted", Topology.ORDERS_EXCHANGE, "{\"a\":1}");
        fx.db.update("UPDATE message_outbox SET last_error_code = 'RELAY_DIED' WHERE id = ?", suspect);
        Settings settings = new Settings(fx.env("OUTBOX_RELAY_ID", "relay-survivor"));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        session = new BrokerSession(
                BrokerConfig.from(settings, fx.broker.uri(), "relay-worker-loop-it"),
                new ExponentialBackoff(Duration.ofMillis(100), Duration.ofSeconds(1)),
                c -> {});
        session.start();
        await().atMost(Duration.ofSeconds(20)).until(session::isAvailable);
        relay = new OutboxRelay(RelayConfig.from(settings), throwingOnce, session, new RelayStats(registry));
        try (RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#")) {
            relay.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> "PUBLISHED".equals(fx.status(suspect)));
            assertEquals(
                    suspect.toString(),
                    wire.await(1, Duration.ofSeconds(10)).get(0).messageId());
        }
        assertEquals(
                1.0,
                registry.get("outbox.relay.unexpected.failures")
                        .tag("where", "suspect-isolation")
                        .counter()
                        .count());
        assertEquals(
                1.0,
                registry.get("outbox.relay.suspects.published.alone").counter().count());
    }

    @Test
    void aSuspectThatCannotBeTakenAloneDoesNotHoldTheLanesBack() throws Exception {
        // this relay holds a row nothing in the process is settling (as when the recorder gave an
        // outcome up and left it to lease recovery): no suspect can be claimed alone until that
        // row is recovered, and the lanes must not be paused waiting for it, slice after slice
        java.util.UUID stuck = fx.insertRaw("order.noted", "order.noted", Topology.ORDERS_EXCHANGE, "{\"s\":1}");
        fx.db.update(
                "UPDATE message_outbox SET status = 'IN_PROGRESS', locked_by = 'relay-blocked', locked_at = now(),"
                        + " lease_token = nextval('message_outbox_lease_token_seq') WHERE id = ?",
                stuck);
        java.util.UUID suspect = fx.insertRaw("order.noted", "order.noted", Topology.ORDERS_EXCHANGE, "{\"a\":1}");
        fx.db.update("UPDATE message_outbox SET last_error_code = 'RELAY_DIED' WHERE id = ?", suspect);
        Settings settings = new Settings(fx.env("OUTBOX_RELAY_ID", "relay-blocked"));
        session = new BrokerSession(
                BrokerConfig.from(settings, fx.broker.uri(), "relay-worker-loop-it"),
                new ExponentialBackoff(Duration.ofMillis(100), Duration.ofSeconds(1)),
                c -> {});
        session.start();
        await().atMost(Duration.ofSeconds(20)).until(session::isAvailable);
        relay = new OutboxRelay(RelayConfig.from(settings), fx.store(), session, new RelayStats());
        RecordingQueue wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#");
        relay.start();
        // a steady trickle, one row every 200 ms for 6 s: long enough to meet several suspect slices
        AtomicInteger written = new AtomicInteger();
        java.util.concurrent.ScheduledExecutorService trickle =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try {
            trickle.scheduleAtFixedRate(
                    () -> {
                        int i = written.get();
                        if (i < 30) {
                            fx.insertRaw("order.noted", "order.noted", Topology.ORDERS_EXCHANGE, "{\"n\":" + i + "}");
                            written.incrementAndGet();
                        }
                    },
                    0,
                    200,
                    java.util.concurrent.TimeUnit.MILLISECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> written.get() == 30);
        } finally {
            trickle.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> fx.countByStatus("PUBLISHED") == 30);
        double slowest = ((Number) fx.db.scalar("SELECT max(extract(epoch FROM published_at - created_at))"
                        + " FROM message_outbox WHERE status = 'PUBLISHED'"))
                .doubleValue();
        assertEquals(
                true,
                slowest < 3.0,
                "the slowest of 30 rows took " + slowest + " s: the lanes were held back for a suspect"
                        + " that could not be taken (" + relay.suspectSlices() + " slices)");
        assertEquals("PENDING", fx.status(suspect), "the suspect waits: it is only ever taken alone");
        assertEquals(30, wire.await(30, Duration.ofSeconds(10)).size());
        wire.close();
    }
}
