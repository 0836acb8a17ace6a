package dev.outbox.consumer.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.consumer.MessageHandler;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.testkit.RequiresRabbitMq;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 21: a consumer whose database is down must not spend a quorum queue's delivery limit. The
 * consumer used to nack-requeue a delivery about once a second while the database was away; each
 * requeue raises {@code x-delivery-count}, so a limit (RabbitMQ 4's default is 20) dead-lettered,
 * or with no target dropped, good messages within a minute. Measured on this machine's RabbitMQ
 * (3.10 keeps the count): a quorum queue with a delivery limit of 3 and its dead-letter queue as
 * target, the database cut for several seconds under a running consumer, then restored. Every
 * message must be applied, none dead-lettered, and none delivered more than once.
 */
@RequiresRabbitMq("quorum queues count deliveries (x-delivery-count) and enforce x-delivery-limit")
class DatabaseOutageDeliveryCountIT {
    private static final String QUEUE = "outbox.test.outage";
    private static final String DLQ = QUEUE + ".dlq";
    private static final int MESSAGES = 10;
    private static final long LIMIT = 3;
    private static final Duration OUTAGE = Duration.ofSeconds(8);

    private final TestDatabase db = TestDatabase.get();
    private final TestBroker broker = TestBroker.get();

    @RegisterExtension
    final TestResources closing = new TestResources();

    private TcpProxy proxy;
    private Injector injector;

    @BeforeEach
    void setUp() throws Exception {
        db.reset();
        proxy = TcpProxy.start(db.host(), db.port());
        HikariDataSource pool = DataSources.create(new DatabaseConfig(
                db.urlVia(proxy.host(), proxy.port()),
                db.user(),
                db.password(),
                4,
                Duration.ofMillis(500),
                Duration.ofSeconds(5),
                Duration.ofSeconds(10),
                Duration.ofSeconds(10),
                "outage-count-it",
                false));
        closing.add(pool::close);
        closing.add(proxy);
        injector = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(5), AppliedEffectMapper.class));
        injector.getInstance(AppliedEffectMapper.class).createTable();
        broker.deleteQueue(QUEUE);
        broker.deleteQueue(DLQ);
        // as Topology declares a quorum consumer queue, with a limit low enough to see it spent
        broker.withChannel(ch -> {
            ch.queueDeclare(DLQ, true, false, false, Map.of("x-queue-type", "quorum"));
            ch.queueDeclare(
                    QUEUE,
                    true,
                    false,
                    false,
                    Map.of(
                            "x-queue-type", "quorum",
                            "x-delivery-limit", LIMIT,
                            "x-dead-letter-exchange", "",
                            "x-dead-letter-routing-key", DLQ,
                            "x-dead-letter-strategy", "at-least-once",
                            "x-overflow", "reject-publish"));
        });
    }

    @AfterEach
    void tearDown() throws Exception {
        closing.closeAll();
        broker.deleteQueue(QUEUE);
        broker.deleteQueue(DLQ);
    }

    private void publish(String aggregateId) {
        Map<String, Object> headers = new HashMap<>();
        headers.put("message_type", "test.event");
        headers.put("message_version", 1);
        headers.put("aggregate_type", "order");
        headers.put("aggregate_id", aggregateId);
        AMQP.BasicProperties p = new AMQP.BasicProperties.Builder()
                .messageId(UUID.randomUUID().toString())
                .type("test.event")
                .contentType("application/json")
                .deliveryMode(2)
                .headers(headers)
                .build();
        broker.withChannel(ch ->
                ch.basicPublish("", QUEUE, p, ("{\"id\":\"" + aggregateId + "\"}").getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aDatabaseOutageUnderARunningConsumerLeavesTheDeliveryCountUnchanged() throws Exception {
        AppliedEffectMapper effects = injector.getInstance(AppliedEffectMapper.class);
        AtomicLong highestCount = new AtomicLong(-1);
        MessageHandler handler = m -> {
            highestCount.accumulateAndGet(m.deliveryCount(), Math::max);
            effects.record("outage-consumer", m.aggregateId(), m.aggregateVersion(), m.messageId());
        };
        Connection connection = broker.connectionFactory().newConnection("outage-consumer");
        closing.add(connection::close);
        ConsumerRunner runner = ConsumerRunner.transactional(
                new ConsumerSettings(
                        "outage-consumer", QUEUE, DLQ, 10, 2, 2, Duration.ofMillis(20), Duration.ofSeconds(5)),
                ConsumerFrameworkIT.testContract(),
                injector.getInstance(IdempotentProcessor.class),
                handler,
                injector.getInstance(FailureCounter.class));
        closing.add(runner);

        proxy.cut();
        long cutAt = System.nanoTime();
        runner.start(connection);
        for (int i = 0; i < MESSAGES; i++) {
            publish("outage-" + i);
        }
        // the outage lasts OUTAGE, and the consumer has been turned away by the database many times in it
        await("an outage of " + OUTAGE.toSeconds() + " s with the consumer trying")
                .atMost(OUTAGE.plusSeconds(30))
                .until(() -> System.nanoTime() - cutAt >= OUTAGE.toNanos() && proxy.rejected() >= 10);
        long rejected = proxy.rejected();
        long waits = runner.stats().databaseWaits();
        long outageMillis = (System.nanoTime() - cutAt) / 1_000_000;
        proxy.restore();

        await("every message applied or dead-lettered by the broker")
                .atMost(Duration.ofSeconds(60))
                .until(() ->
                        db.count("SELECT count(*) FROM test_applied_effects") + broker.messageCount(DLQ) >= MESSAGES);
        System.out.printf(
                "[DatabaseOutageDeliveryCountIT] outage %d ms, %d connection attempts refused, %d tries held unacked;"
                        + " highest x-delivery-count applied %d (limit %d), dead-lettered by the broker %d,"
                        + " requeued %d%n",
                outageMillis,
                rejected,
                waits,
                highestCount.get(),
                LIMIT,
                broker.messageCount(DLQ),
                runner.stats().requeued());
        assertEquals(0, broker.messageCount(DLQ), "no message was dead-lettered by the delivery limit");
        assertEquals(MESSAGES, db.count("SELECT count(*) FROM test_applied_effects"), "every message applied");
        assertEquals(0, highestCount.get(), "the outage did not raise any delivery count");
        assertEquals(0, runner.stats().requeued(), "nothing was requeued for the outage");
        assertEquals(0, runner.stats().failures(), "an outage is not the message's failure");
    }
}
