package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.outbox.config.Settings;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.BrokerSession;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.producer.MessageContext;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A publishing lane survives whatever its work throws, an {@link Error} included: an ended lane
 * would leave a relay that looks alive (its process runs, its liveness lock is held) and publishes
 * nothing. The surprise is counted and the lane carries on.
 */
class RelayWorkerLoopIT {
    private final OutboxFixtures fx = new OutboxFixtures();
    private BrokerSession session;
    private OutboxRelay relay;

    @BeforeEach
    void clean() {
        fx.db.reset();
        fx.broker.declareTopicExchange(Topology.ORDERS_EXCHANGE);
    }

    @AfterEach
    void close() {
        if (relay != null) {
            relay.stop();
        }
        if (session != null) {
            session.close();
        }
        fx.close();
    }

    @Test
    void anErrorThrownInAPublishingLaneIsCountedAndTheLaneCarriesOn() {
        OutboxStore real = fx.store();
        AtomicInteger claims = new AtomicInteger();
        OutboxStore throwingOnce = new OutboxStore(fx.injector.getInstance(OutboxMapper.class)) {
            @Override
            public List<OutboxRecord> claim(String relayId, int limit, Set<String> unorderedTypes) {
                if (claims.getAndIncrement() == 0) {
                    throw new AssertionError("injected: the first claim throws an Error");
                }
                return real.claim(relayId, limit, unorderedTypes);
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
}
