package dev.outbox.consumer.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Channel;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.kernel.topology.BrokerTopology;
import dev.outbox.messaging.Topology;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The consumer process starts its parts through one lifecycle: when the last part (retention)
 * fails to start, every part started before it is stopped again. Before issue 21 only the
 * database was closed, and the broker session, the runner's consumers and the HTTP port stayed.
 */
class ConsumerAppStartIT {
    private final TestDatabase db = TestDatabase.get();
    private final TestBroker broker = TestBroker.get();

    @BeforeEach
    void setUp() {
        db.reset();
        broker.withChannel(Topology::declare);
        // every test here that publishes order events fills its queue too: start each one empty
        broker.purgeIfExists(RuntimeTestConsumer.QUEUE);
        broker.purgeIfExists(Topology.deadLetterQueueOf(RuntimeTestConsumer.QUEUE));
    }

    private Map<String, String> env(int httpPort) {
        Map<String, String> env = new HashMap<>(db.env());
        env.putAll(broker.env());
        env.put("OUTBOX_RUNTIME_TEST_HTTP_PORT", String.valueOf(httpPort));
        env.put("OUTBOX_RUNTIME_TEST_HTTP_HOST", "127.0.0.1");
        return env;
    }

    private int consumersOnItsQueue() throws Exception {
        try (Channel ch = broker.connection().createChannel()) {
            return ch.queueDeclarePassive(RuntimeTestConsumer.QUEUE).getConsumerCount();
        }
    }

    private long itsDatabaseSessions() {
        return db.count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND application_name = 'outbox-" + RuntimeTestConsumer.NAME + "'");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (ConnectException e) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /** Where a relay that has none of the consumer's files reads its queue: as the file says it. */
    @Test
    void atStartItRegistersItsQueueAsItsTopologyFileDeclaresIt() throws Exception {
        try (ConsumerApp app = ConsumerApp.start(new Settings(env(-1)), RuntimeTestConsumer.REGISTRATION)) {
            assertEquals(
                    List.of(Map.of(
                            "queue_name", RuntimeTestConsumer.QUEUE,
                            "consumer_name", RuntimeTestConsumer.NAME,
                            "registered_by", RuntimeTestConsumer.NAME,
                            "revision", 1,
                            "keys", "contracts")),
                    db.rows("SELECT queue_name, consumer_name, registered_by, revision,"
                            + " declaration->'bindings'->0->>'routingKeys' AS keys FROM outbox_queue_declarations"));
        }
    }

    @Test
    void whenRetentionFailsToStartEveryPartStartedBeforeItIsStopped() throws Exception {
        int port = freePort();
        AtomicBoolean reached = new AtomicBoolean();
        IllegalStateException refusal = new IllegalStateException("retention refused to start (test)");
        IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> ConsumerApp.start(new Settings(env(port)), RuntimeTestConsumer.REGISTRATION, schedule -> {
                    // everything before retention is up: the runner consumes, the port answers
                    await().atMost(Duration.ofSeconds(20)).until(() -> consumersOnItsQueue() == 2);
                    assertTrue(listening(port), "the HTTP endpoint was up");
                    assertTrue(itsDatabaseSessions() > 0, "the pool had connections");
                    reached.set(true);
                    throw refusal;
                }));
        assertSame(refusal, thrown, "the start-up failure itself is thrown");
        assertTrue(reached.get(), "retention was the part that failed");
        await("the runner's consumers are gone with its channels")
                .atMost(Duration.ofSeconds(10))
                .until(() -> consumersOnItsQueue() == 0);
        assertTrue(!listening(port), "the HTTP endpoint is closed");
        await("the pool is closed").atMost(Duration.ofSeconds(10)).until(() -> itsDatabaseSessions() == 0);
    }

    @Test
    void onAQuorumQueueTheConsumersAttemptsMustStayBelowTheQueuesDeliveryLimit() {
        Map<String, String> env = env(-1);
        env.put("OUTBOX_AMQP_QUEUE_TYPE", "quorum");
        env.put("OUTBOX_RUNTIME_TEST_MAX_ATTEMPTS", "50");
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> ConsumerApp.start(new Settings(env), RuntimeTestConsumer.REGISTRATION));
        assertTrue(
                e.getMessage().contains("OUTBOX_RUNTIME_TEST_MAX_ATTEMPTS 50 must be below the delivery limit 50"),
                e.getMessage());
        assertEquals(0, itsDatabaseSessions(), "refused before anything started");
    }

    @Test
    void aConsumerInAggregateOrderWhoseQueueMissesSomeOfTheAggregatesTypesIsRefused(@TempDir Path dir)
            throws IOException {
        // the shipments sample's binding (order.shipped alone), but applied in aggregate order
        ConsumerRegistration partial = ConsumerRegistration.builder(
                        "partial_orders", "partial.order-events", RuntimeTestConsumer.RecordingHandler.class)
                .mappers(RuntimeTestConsumer.EffectMapper.class)
                .build();
        Path file = dir.resolve("topology/partial.order-events.queue.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, """
                {"queue": "partial.order-events", "consumer": "partial_orders",
                 "bindings": [{"exchange": "orders.events", "routingKeys": ["order.shipped"]}]}""");
        MessageContracts contracts = MessageContracts.onClasspath();
        WireContract shippedOnly;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            shippedOnly =
                    WireContract.forQueue(contracts, BrokerTopology.load(loader, contracts), "partial.order-events");
        }
        assertTrue(shippedOnly.partlyBoundOrderedAggregates().get("order").contains("order.created"));
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> ConsumerApp.requireEveryTypeOfAnOrderedAggregate(partial, shippedOnly));
        assertTrue(e.getMessage().contains("asDelivered()"), e.getMessage());
        assertEquals(
                Map.of(),
                WireContract.forQueue(RuntimeTestConsumer.QUEUE).partlyBoundOrderedAggregates(),
                "a queue bound to every contract misses nothing");
        ConsumerApp.requireEveryTypeOfAnOrderedAggregate(
                ConsumerRegistration.builder(
                                "partial_orders", "partial.order-events", RuntimeTestConsumer.RecordingHandler.class)
                        .asDelivered()
                        .build(),
                shippedOnly);
    }
}
