package dev.outbox.sample.ledger;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.outbox.config.Settings;
import dev.outbox.consumer.runtime.ConsumerApp;
import dev.outbox.consumer.runtime.ConsumerRunner;
import dev.outbox.consumer.runtime.DeliveryMutations;
import dev.outbox.consumer.runtime.DeliveryMutations.Mutation;
import dev.outbox.consumer.runtime.DeliveryMutations.Wire;
import dev.outbox.consumer.runtime.WireContract;
import dev.outbox.messaging.Topology;
import dev.outbox.messaging.publish.DeadLetters;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Generated malformed deliveries against the ledger process: each a valid {@code payment.captured}
 * (as the relay maps it) with one mutation ({@link DeliveryMutations}), published through
 * {@code orders.events} into the real ledger queue on the real broker, with the ledger consumer
 * running on the real database. Every one must come out of the dead-letter queue with a reason
 * naming the rule it breaks, nothing may be booked or recorded as processed, the consumer keeps
 * both channels, and a valid order published after all of them is booked. The QuickTheories seed
 * is fixed (21) so the counts per rule in the README are this test's. A failure is not shrunk:
 * every example is a delivery on the real broker, and the counts checked after the run take in
 * each one.
 */
class LedgerContractFuzzIT {
    static final int EXAMPLES = 150;
    static final long SEED = 21;
    private static final String DLQ = Topology.deadLetterQueueOf(LedgerConsumer.QUEUE);

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestBroker BROKER = TestBroker.get();
    private static final AtomicInteger PUBLISHED = new AtomicInteger();
    private static final Map<String, GetResponse> DEAD_LETTERS = new ConcurrentHashMap<>();
    private static ConsumerApp app;
    private static Channel channel;

    @BeforeAll
    static void startTheLedger() throws Exception {
        DB.reset();
        BROKER.withChannel(Topology::declare);
        BROKER.purgeIfExists(LedgerConsumer.QUEUE);
        BROKER.purgeIfExists(DLQ);
        Map<String, String> env = new HashMap<>(DB.env());
        env.putAll(BROKER.env());
        env.put("OUTBOX_LEDGER_HTTP_PORT", "-1");
        env.put("OUTBOX_RETENTION_ENABLED", "false");
        app = ConsumerApp.start(new Settings(env), LedgerConsumer.REGISTRATION);
        channel = BROKER.connection().createChannel();
        await().atMost(Duration.ofSeconds(20)).until(() -> app.runner().isConsuming());
    }

    @AfterAll
    static void aValidOrderAfterThemIsBookedAndTheConsumerIsStillUp() throws Exception {
        try {
            ConsumerRunner runner = app.runner();
            UUID orderId = UUID.randomUUID();
            for (Wire w : DeliveryMutations.placedAndCaptured(orderId)) {
                channel.basicPublish(w.exchange(), w.routingKey(), true, w.props(), w.body());
            }
            await("the valid capture after " + PUBLISHED.get() + " malformed deliveries is booked")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> captures(orderId) == 1);
            assertTrue(PUBLISHED.get() >= 100, "at least 100 malformed deliveries: " + PUBLISHED.get());
            assertEquals(PUBLISHED.get(), runner.stats().contractViolations(), "each counted as a contract violation");
            assertEquals(PUBLISHED.get(), runner.stats().deadLettered());
            assertEquals(0, runner.stats().deliveryErrors(), "nothing reached the callback boundary");
            assertEquals(0, runner.stats().failures(), "nothing was retried");
            assertTrue(runner.isConsuming(), "both channels still consume");
            assertEquals(
                    2, runner.stats().applied() + runner.stats().heldApplied(), "only the valid order was applied");
            StringBuilder report = new StringBuilder("[LedgerContractFuzzIT] " + PUBLISHED.get()
                    + " malformed deliveries into " + LedgerConsumer.QUEUE + ", each dead-lettered; by rule:");
            for (WireContract.Rule rule : WireContract.Rule.values()) {
                if (runner.stats().contractViolations(rule) > 0) {
                    report.append(' ')
                            .append(rule.id())
                            .append('=')
                            .append(runner.stats().contractViolations(rule));
                }
            }
            System.out.println(report);
        } finally {
            channel.close();
            app.close();
        }
    }

    private static long captures(UUID orderId) {
        return DB.count(
                "SELECT count(*) FROM ledger_entries WHERE order_id = ?::uuid AND entry_type = 'CAPTURE'",
                orderId.toString());
    }

    /** Takes every dead letter there is, by the appId each probe carries. */
    private static GetResponse deadLetter(String appId) throws Exception {
        GetResponse r;
        while ((r = channel.basicGet(DLQ, true)) != null) {
            DEAD_LETTERS.put(String.valueOf(r.getProps().getAppId()), r);
        }
        return DEAD_LETTERS.get(appId);
    }

    @Test
    void everyMalformedDeliveryIsDeadLetteredWithItsRuleAndNothingIsBooked() {
        qt().withFixedSeed(SEED)
                .withExamples(EXAMPLES)
                .withShrinkCycles(0)
                .forAll(DeliveryMutations.all(), DeliveryMutations.validCaptures())
                .checkAssert((mutation, valid) -> {
                    try {
                        isDeadLetteredWithItsRule(mutation, valid);
                    } catch (RuntimeException | Error e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
    }

    private static void isDeadLetteredWithItsRule(Mutation mutation, Wire valid) throws Exception {
        Wire wire = mutation.applyTo(valid);
        String appId = "fuzz-" + PUBLISHED.incrementAndGet();
        channel.basicPublish(
                wire.exchange(),
                wire.routingKey(),
                true,
                wire.props().builder().appId(appId).build(),
                wire.body());

        GetResponse dead = await(mutation.toString())
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> deadLetter(appId), r -> r != null);
        Object reason = dead.getProps().getHeaders().get(DeadLetters.REASON);
        assertNotNull(reason, mutation + ": the dead letter says why");
        assertTrue(
                reason.toString().startsWith("contract/" + mutation.breaks().id() + ": "),
                mutation + ": dead-lettered as " + reason);
        assertEquals(
                LedgerConsumer.NAME,
                dead.getProps().getHeaders().get(DeadLetters.CONSUMER).toString());
        assertEquals(0, DB.count("SELECT count(*) FROM ledger_entries"), mutation + ": nothing booked");
        assertEquals(0, DB.count("SELECT count(*) FROM processed_messages"), mutation + ": nothing processed");
        assertEquals(0, DB.count("SELECT count(*) FROM ledger_journal"), mutation + ": nothing applied");
        assertTrue(app.runner().isConsuming(), mutation + ": the consumer still consumes on both channels");
    }
}
