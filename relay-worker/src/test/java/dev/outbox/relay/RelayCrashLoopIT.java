package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.messaging.Topology;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay that crash-loops on one row, with real processes on real PostgreSQL and RabbitMQ: the
 * poison row is the oldest of a backlog that fits one batch, and the relay process dies
 * ({@code Runtime.halt}, {@link PoisonRelayMain}) whenever it is about to send it. A supervisor
 * (this test) restarts it with the same relay id each time, and the new incarnation takes back
 * what the dead one held. Every healthy row must end {@code PUBLISHED} and delivered; only the
 * poison row is parked ({@code RELAY_DIED}); the version behind it waits; the versions behind
 * healthy rows follow them in order.
 */
class RelayCrashLoopIT {
    private static final Logger LOG = LoggerFactory.getLogger(RelayCrashLoopIT.class);
    private static final String RELAY = "relay-crash-loop";
    private static final String MARKER = "poison-7f3a91c2";
    private static final int UNVERSIONED = 160;
    private static final int AGGREGATES = 20;
    private static final int MAX_RESTARTS = 15;
    /** The default backoff has five steps: the poison row may kill the relay this often while alone. */
    private static final int ATTEMPTS = RelayConfig.DEFAULT_BACKOFF.size();

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().exchange();

    private final TestResources closing = fx.resources();

    private RecordingQueue wire;

    @BeforeEach
    void clean() {
        wire = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#");
        closing.add(wire);
    }

    private UUID row(String aggregate, Long version, String payload) {
        UUID id = UUID.randomUUID();
        fx.db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload, created_at)"
                        + " VALUES (?, 'crash-loop', ?, ?, 'crash.loop', 'orders.events', 'crash.loop', ?::jsonb,"
                        + " clock_timestamp())",
                id,
                aggregate,
                version,
                payload);
        return id;
    }

    /**
     * Everything that can be settled is: no row leased or waiting, except versions held behind a
     * parked earlier version of their aggregate (those wait for an operator, whatever the relay does).
     */
    private boolean settled() {
        return fx.count("status IN ('PENDING', 'RETRYABLE_FAILED', 'IN_PROGRESS') AND NOT EXISTS (SELECT 1 FROM"
                        + " message_outbox p WHERE p.aggregate_type = message_outbox.aggregate_type"
                        + " AND p.aggregate_id = message_outbox.aggregate_id"
                        + " AND p.aggregate_version < message_outbox.aggregate_version AND p.status = 'PARKED')")
                == 0;
    }

    @Test
    void aRelayThatDiesOnOneRowParksThatRowAloneAndPublishesEveryOther() throws Exception {
        UUID poison = row("poisoned", 1L, "{\"note\":\"" + MARKER + "\"}");
        UUID behindPoison = row("poisoned", 2L, "{\"note\":\"after the poison\"}");
        List<UUID> healthy = new ArrayList<>();
        List<UUID[]> versioned = new ArrayList<>();
        for (int a = 0; a < AGGREGATES; a++) {
            UUID v1 = row("healthy-" + a, 1L, "{\"v\":1}");
            UUID v2 = row("healthy-" + a, 2L, "{\"v\":2}");
            healthy.add(v1);
            healthy.add(v2);
            versioned.add(new UUID[] {v1, v2});
        }
        for (int i = 0; i < UNVERSIONED; i++) {
            healthy.add(row("single-" + i, null, "{\"i\":" + i + "}"));
        }

        int deaths = 0;
        int restarts = 0;
        for (; restarts < MAX_RESTARTS; restarts++) {
            JavaProcess relay = JavaProcess.start(
                    "crash-loop-" + restarts,
                    PoisonRelayMain.class.getName(),
                    fx.env("OUTBOX_RELAY_ID", RELAY, "POISON_MARKER", MARKER));
            closing.add(relay);
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> !relay.isAlive() || settled());
            if (relay.isAlive()) {
                break;
            }
            assertTrue(
                    relay.output().contains(PoisonRelayMain.HALTING),
                    "the relay died of the poison row, nothing else:\n" + relay.output());
            deaths++;
            LOG.info(
                    "death {}: poison {} after {} attempt(s); published so far {}",
                    deaths,
                    fx.status(poison),
                    fx.db.scalar("SELECT attempt_count FROM message_outbox WHERE id = ?", poison),
                    fx.countByStatus("PUBLISHED"));
        }
        LOG.info("the relay died {} time(s) and was restarted {} time(s)", deaths, restarts);

        Map<String, Object> p = fx.db.rows(
                        "SELECT status, last_error_code, attempt_count FROM message_outbox WHERE id = ?", poison)
                .get(0);
        assertEquals(Map.of("status", "PARKED", "last_error_code", "RELAY_DIED", "attempt_count", ATTEMPTS), p);
        assertEquals(
                0,
                fx.db.count("SELECT count(*) FROM message_outbox WHERE id = ANY(?) AND status <> 'PUBLISHED'", (Object)
                        healthy.toArray(UUID[]::new)),
                "every healthy row is published; by status and code: "
                        + fx.db.rows(
                                "SELECT status, last_error_code, count(*) FROM message_outbox WHERE id = ANY(?)"
                                        + " GROUP BY 1, 2 ORDER BY 1, 2",
                                (Object) healthy.toArray(UUID[]::new)));
        assertEquals("PENDING", fx.status(behindPoison), "the version behind the parked row waits for it");
        // two deaths with a batch (the first gives the batch back for ordinary claims, the second
        // makes its rows suspects), then one death per attempt of the poison row alone
        assertEquals(2 + ATTEMPTS, deaths, "deaths");
        for (UUID[] v : versioned) {
            assertTrue(
                    fx.db.count(
                                    "SELECT count(*) FROM message_outbox a, message_outbox b WHERE a.id = ? AND b.id = ?"
                                            + " AND a.published_at <= b.published_at",
                                    v[0],
                                    v[1])
                            == 1,
                    "version 2 after version 1 of its aggregate");
        }

        List<TestBroker.Received> received = wire.await(healthy.size(), Duration.ofSeconds(30));
        Map<String, Long> copies =
                received.stream().collect(Collectors.groupingBy(TestBroker.Received::messageId, Collectors.counting()));
        Set<String> missing = healthy.stream()
                .map(UUID::toString)
                .filter(id -> !copies.containsKey(id))
                .collect(Collectors.toSet());
        assertEquals(Set.of(), missing, "delivered, each with its messageId");
        assertFalse(copies.containsKey(poison.toString()), "the poison row never left the relay");
        LOG.info(
                "{} healthy rows delivered, {} extra copies",
                healthy.size(),
                copies.values().stream().mapToLong(Long::longValue).sum() - copies.size());
    }
}
