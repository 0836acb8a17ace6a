package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.jdbc.MessageRegistry;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A contract registered while the relay runs takes effect without a restart: heard at once through
 * the relay's LISTEN connection, or found by its poll where it does not listen (CDC mode's default).
 * Each test leaves the other way out, so each passes by its own way only.
 */
class RelayRegistryIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String PROBE = "registry.probe";

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().exchange();

    private final TestResources closing = fx.resources();

    @Test
    void aRegistrationIsHeardAtOnceByTheListeningRelay() throws Exception {
        // a poll this long never comes within the test: only the notification can bring the contract
        RelayApp relay = closing.add(RelayApp.start(new Settings(fx.env("OUTBOX_RELAY_REGISTRY_POLL", "1h"))));
        registerProbeAndExpectItsBrokenRowsParked(relay);
    }

    @Test
    void aRelayThatDoesNotListenFindsTheRegistrationAtItsPoll() throws Exception {
        RelayApp relay = closing.add(RelayApp.start(
                new Settings(fx.env("OUTBOX_RELAY_LISTEN", "false", "OUTBOX_RELAY_REGISTRY_POLL", "200ms"))));
        registerProbeAndExpectItsBrokenRowsParked(relay);
    }

    @Test
    void aRowOfAnUnregisteredTypeIsParkedAndPublishedByItselfOnceItsContractIsRegistered() throws Exception {
        RelayApp relay = closing.add(RelayApp.start(
                new Settings(fx.env("OUTBOX_RELAY_UNREGISTERED_TYPES", "park", "OUTBOX_RELAY_REGISTRY_POLL", "1h"))));
        RecordingQueue wire = fx.observe("#");
        UUID early = insertProbe("{\"probeId\": \"p-1\", \"count\": 1}");
        await().atMost(WAIT).until(() -> "PARKED".equals(fx.status(early)));
        assertEquals(
                "CONTRACT_UNKNOWN", fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", early));
        String reason = (String) fx.db.scalar("SELECT last_error_message FROM message_outbox WHERE id = ?", early);
        assertTrue(reason.contains("no contract for message type registry.probe"), reason);
        assertEquals(List.of(), wire.drain(), "parked, not sent");

        // the producer registers late: nobody retries by hand
        new MessageRegistry(fx.db.dataSource())
                .registerContracts(
                        List.of(RelayContractsIT.parsed(RelayContractsIT.contract(PROBE, 1, false), PROBE, 1)),
                        "probe-service");

        assertEquals(
                List.of(early.toString()),
                wire.await(1, WAIT).stream().map(TestBroker.Received::messageId).toList());
        await().atMost(WAIT).until(() -> "PUBLISHED".equals(fx.status(early)));
        assertEquals(
                1,
                ((Number) fx.db.scalar("SELECT attempt_count FROM message_outbox WHERE id = ?", early)).intValue(),
                "a fresh attempt budget: one attempt, the publish");
        assertTrue(relay.relay().config().contracts().current().knows(PROBE));

        // a version not registered yet waits the same way, rather than being lost as PAYLOAD_INVALID
        UUID v2 = UUID.randomUUID();
        fx.db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, message_version,"
                        + " exchange_name, routing_key, payload) VALUES (?, 'order', 'p-1', ?, 2, 'orders.events', ?,"
                        + " '{\"probeId\": \"p-1\", \"count\": 2}')",
                v2,
                PROBE,
                PROBE);
        await().atMost(WAIT).until(() -> "PARKED".equals(fx.status(v2)));
        assertEquals("CONTRACT_UNKNOWN", fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", v2));
        new MessageRegistry(fx.db.dataSource())
                .registerContracts(
                        List.of(RelayContractsIT.parsed(RelayContractsIT.contract(PROBE, 2, false), PROBE, 2)),
                        "probe-service");
        assertEquals(
                List.of(v2.toString()),
                wire.await(1, WAIT).stream().map(TestBroker.Received::messageId).toList());
    }

    /** A row for the probe type that honours its contract, as any SQL client may write it. */
    private UUID insertProbe(String payload) {
        UUID id = UUID.randomUUID();
        fx.db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name, routing_key,"
                        + " payload) VALUES (?, 'order', 'p-1', ?, 'orders.events', ?, ?::jsonb)",
                id,
                PROBE,
                PROBE,
                payload);
        return id;
    }

    private void registerProbeAndExpectItsBrokenRowsParked(RelayApp relay) throws InterruptedException {
        RelayContracts contracts = relay.relay().config().contracts();
        assertTrue(!contracts.current().knows(PROBE), "not on the relay's classpath");

        new MessageRegistry(fx.db.dataSource())
                .registerContracts(
                        List.of(RelayContractsIT.parsed(RelayContractsIT.contract(PROBE, 1, false), PROBE, 1)),
                        "probe-service");
        await().atMost(WAIT).until(() -> contracts.current().knows(PROBE));
        assertTrue(contracts.unorderedTypes().contains(PROBE), "its contract says \"ordered\": false");

        RecordingQueue wire = fx.observe("#");
        UUID broken = fx.insertRaw(PROBE, PROBE, "orders.events", "{\"not\": \"a probe\"}");
        UUID fine = insertProbe("{\"probeId\": \"p-1\", \"count\": 1}");
        await().atMost(WAIT).until(() -> "PUBLISHED".equals(fx.status(fine)) && !"PENDING".equals(fx.status(broken)));
        assertEquals(
                List.of("PARKED", "PAYLOAD_INVALID"),
                List.of(
                        fx.status(broken),
                        fx.db.scalar("SELECT last_error_code FROM message_outbox WHERE id = ?", broken)));
        String reason = (String) fx.db.scalar("SELECT last_error_message FROM message_outbox WHERE id = ?", broken);
        assertTrue(reason.contains("breaks the registry.probe v1 contract"), reason);
        assertEquals(
                List.of(fine.toString()),
                wire.await(1, WAIT).stream().map(TestBroker.Received::messageId).toList());
        assertEquals(List.of(), wire.drain(), "the broken row never reached the broker");
    }
}
