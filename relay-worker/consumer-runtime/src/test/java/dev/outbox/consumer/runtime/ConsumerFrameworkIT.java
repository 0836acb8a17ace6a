package dev.outbox.consumer.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.consumer.MessageHandler;
import dev.outbox.consumer.NonRetryableMessageException;
import dev.outbox.messaging.publish.DeadLetters;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The consumer framework against real RabbitMQ and PostgreSQL: ordered apply with prefetch and
 * several instances, dedupe under concurrent duplicates, poison messages to the dead-letter queue.
 */
class ConsumerFrameworkIT {
    static final String QUEUE = "outbox.test.consumer";
    static final String DLQ = QUEUE + ".dlq";
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestDatabase db = TestDatabase.get();
    private final TestBroker broker = TestBroker.get();

    @RegisterExtension
    final TestResources closing = new TestResources();

    private HikariDataSource pool;
    private Injector injector;

    @BeforeEach
    void setUp() {
        pool = DataSources.create(DatabaseConfig.of(db.url(), db.user(), db.password(), "consumer-it")
                .withPoolSize(12));
        injector = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30), AppliedEffectMapper.class));
        injector.getInstance(AppliedEffectMapper.class).createTable();
        db.reset();
        broker.deleteQueue(QUEUE);
        broker.deleteQueue(DLQ);
        broker.withChannel(ch -> {
            ch.queueDeclare(QUEUE, true, false, false, null);
            ch.queueDeclare(DLQ, true, false, false, null);
        });
    }

    @AfterEach
    void tearDown() throws Exception {
        closing.closeAll();
        pool.close();
        broker.deleteQueue(QUEUE);
        broker.deleteQueue(DLQ);
    }

    private ConsumerSettings settings(int prefetch, int maxAttempts) {
        return new ConsumerSettings(
                "test-consumer", QUEUE, DLQ, prefetch, 2, maxAttempts, Duration.ofMillis(20), Duration.ofSeconds(5));
    }

    /** One consumer instance: its own connection, like a separate process. */
    /**
     * The catalogue of these tests: {@code test.event} v1 only, unordered (some messages carry no
     * version), its body {@code {"id": <aggregate_id>}}. It lives outside the classpath's
     * {@code contracts/} folder, so no other test or process sees it.
     */
    static WireContract testContract() {
        java.net.URL root = ConsumerFrameworkIT.class.getResource("/framework-contracts/");
        try (java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] {root}, null)) {
            return WireContract.serving(dev.outbox.kernel.contract.MessageContracts.load(loader));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private ConsumerRunner instance(ConsumerSettings s, MessageHandler handler) throws Exception {
        Connection connection = broker.connectionFactory().newConnection("consumer-instance");
        closing.add(connection::close);
        ConsumerRunner runner = ConsumerRunner.transactional(
                s,
                testContract(),
                injector.getInstance(IdempotentProcessor.class),
                handler,
                injector.getInstance(FailureCounter.class));
        runner.start(connection);
        closing.add(runner);
        return runner;
    }

    private MessageHandler recordingHandler() {
        AppliedEffectMapper effects = injector.getInstance(AppliedEffectMapper.class);
        return m -> effects.record("test-consumer", m.aggregateId(), m.aggregateVersion(), m.messageId());
    }

    static AMQP.BasicProperties props(String messageId, String aggregateId, Long version, Map<String, Object> extra) {
        Map<String, Object> headers = new HashMap<>(extra);
        headers.put("message_type", "test.event");
        headers.put("message_version", 1);
        headers.put("aggregate_type", "order");
        headers.put("aggregate_id", aggregateId);
        if (version != null) {
            headers.put("aggregate_version", version);
        }
        return new AMQP.BasicProperties.Builder()
                .messageId(messageId)
                .type("test.event")
                .deliveryMode(2)
                .contentType("application/json")
                .headers(headers)
                .build();
    }

    /** Straight to the queue (a replay's path), with the body its contract wants. */
    private void publish(Channel ch, AMQP.BasicProperties p) throws Exception {
        String body = "{\"id\":\"" + p.getHeaders().get("aggregate_id") + "\"}";
        ch.basicPublish("", QUEUE, p, body.getBytes(StandardCharsets.UTF_8));
    }

    private long effects() {
        return db.count("SELECT count(*) FROM test_applied_effects");
    }

    @Test
    void outOfOrderDeliveriesAreAppliedInVersionOrderAcrossInstancesWithPrefetch() throws Exception {
        int aggregates = 50;
        int versions = 4;
        List<AMQP.BasicProperties> messages = new ArrayList<>();
        for (int a = 0; a < aggregates; a++) {
            for (long v = versions; v >= 1; v--) { // newest first: the worst order there is
                messages.add(props(UUID.randomUUID().toString(), "agg-" + a, v, Map.of()));
            }
        }
        Collections.shuffle(messages, new Random(42));
        broker.withChannel(ch -> {
            try {
                for (AMQP.BasicProperties p : messages) {
                    publish(ch, p);
                }
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        List<ConsumerRunner> instances = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            instances.add(instance(settings(50, 5), recordingHandler()));
        }
        await().atMost(WAIT).until(() -> effects() == (long) aggregates * versions);

        AppliedEffectMapper effects = injector.getInstance(AppliedEffectMapper.class);
        for (int a = 0; a < aggregates; a++) {
            assertEquals(
                    LongStream.rangeClosed(1, versions).boxed().toList(),
                    effects.versionsInApplyOrder("agg-" + a),
                    "agg-" + a + " applied in order");
        }
        long held = instances.stream().mapToLong(r -> r.stats().held()).sum();
        long heldApplied =
                instances.stream().mapToLong(r -> r.stats().heldApplied()).sum();
        assertTrue(held > 0, "some messages arrived early and were held");
        assertEquals(held, heldApplied, "every held message was applied once its predecessor came");
        assertEquals(0, db.count("SELECT count(*) FROM consumer_held_messages"));
        assertEquals(
                aggregates,
                db.count("SELECT count(*) FROM consumer_aggregate_positions WHERE last_version = ?", (long) versions));
    }

    @Test
    void duplicatesDeliveredConcurrentlyToTwoConsumersApplyOnce() throws Exception {
        int n = 200;
        broker.withChannel(ch -> {
            try {
                for (int i = 0; i < n; i++) {
                    AMQP.BasicProperties p = props(UUID.randomUUID().toString(), "dup-" + i, 1L, Map.of());
                    publish(ch, p);
                    publish(ch, p); // the same message again: same messageId
                }
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        ConsumerRunner a = instance(settings(50, 5), recordingHandler());
        ConsumerRunner b = instance(settings(50, 5), recordingHandler());
        await().atMost(WAIT)
                .until(() -> a.stats().applied()
                                + b.stats().applied()
                                + a.stats().duplicates()
                                + b.stats().duplicates()
                        == 2L * n);
        assertEquals(n, effects());
        assertEquals(n, a.stats().applied() + b.stats().applied());
        assertEquals(n, a.stats().duplicates() + b.stats().duplicates());
        assertEquals(n, db.count("SELECT count(*) FROM processed_messages"));
    }

    @Test
    void aStaleVersionIsAcknowledgedWithoutEffect() throws Exception {
        ConsumerRunner c = instance(settings(1, 5), recordingHandler());
        broker.withChannel(ch -> {
            try {
                publish(ch, props(UUID.randomUUID().toString(), "s", 1L, Map.of()));
                publish(ch, props(UUID.randomUUID().toString(), "s", 2L, Map.of()));
                publish(ch, props(UUID.randomUUID().toString(), "s", 1L, Map.of())); // another message, old version
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        // two channels may deliver v2 before v1 (then v2 is held): every message is accounted for once
        await().atMost(WAIT)
                .until(() -> c.stats().applied() + c.stats().held() + c.stats().stale() == 3);
        assertEquals(1, c.stats().stale());
        assertEquals(c.stats().held(), c.stats().heldApplied());
        assertEquals(
                List.of(1L, 2L), injector.getInstance(AppliedEffectMapper.class).versionsInApplyOrder("s"));
    }

    @Test
    void aMessageThatKeepsFailingIsDeadLetteredWithItsReasonAfterMaxAttempts() throws Exception {
        AppliedEffectMapper effects = injector.getInstance(AppliedEffectMapper.class);
        MessageHandler handler = m -> {
            if (m.headers().containsKey("poison")) {
                throw new IllegalArgumentException("cannot handle " + m.messageId());
            }
            effects.record("test-consumer", m.aggregateId(), m.aggregateVersion(), m.messageId());
        };
        ConsumerRunner c = instance(settings(10, 3), handler);
        String poisonId = UUID.randomUUID().toString();
        broker.withChannel(ch -> {
            try {
                publish(ch, props(poisonId, "p", null, Map.of("poison", true)));
                for (int i = 0; i < 5; i++) {
                    publish(ch, props(UUID.randomUUID().toString(), "ok-" + i, null, Map.of()));
                }
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        await().atMost(WAIT)
                .until(() -> c.stats().deadLettered() == 1 && c.stats().applied() == 5);
        assertEquals(3, c.stats().failures(), "it was tried three times, then moved");
        GetResponse dead = getOne(DLQ);
        assertEquals(poisonId, dead.getProps().getMessageId());
        Map<String, Object> h = dead.getProps().getHeaders();
        assertTrue(
                h.get(DeadLetters.REASON).toString().contains("IllegalArgumentException: cannot handle"), h.toString());
        assertEquals(3, ((Number) h.get(DeadLetters.ATTEMPTS)).intValue());
        assertEquals("test-consumer", h.get(DeadLetters.CONSUMER).toString());
        assertNotNull(db.scalar("SELECT dead_lettered_at FROM consumer_failures WHERE message_id = ?", poisonId));
        assertEquals(
                0,
                db.count("SELECT count(*) FROM processed_messages WHERE message_id = ?", poisonId),
                "its effect never committed");
    }

    @Test
    void aNonRetryableMessageAndOneWithoutAnIdGoStraightToTheDeadLetterQueue() throws Exception {
        MessageHandler handler = m -> {
            throw new NonRetryableMessageException("breaks its contract");
        };
        ConsumerRunner c = instance(settings(10, 5), handler);
        broker.withChannel(ch -> {
            try {
                publish(ch, props(UUID.randomUUID().toString(), "n", null, Map.of()));
                ch.basicPublish(
                        "", QUEUE, new AMQP.BasicProperties.Builder().type("x").build(), new byte[0]);
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        await().atMost(WAIT).until(() -> c.stats().deadLettered() == 2);
        assertEquals(
                1,
                c.stats().contractViolations(WireContract.Rule.MESSAGE_ID),
                "the one without an id broke the contract");
        assertEquals(0, c.stats().failures(), "no retries for what can never succeed");
        assertEquals(2, broker.messageCount(DLQ));
    }

    @Test
    void aPoisonHeldSuccessorIsDeadLetteredAloneAndItsValidPredecessorStaysApplied() throws Exception {
        AppliedEffectMapper effects = injector.getInstance(AppliedEffectMapper.class);
        MessageHandler handler = m -> {
            if (m.headers().containsKey("poison")) {
                throw new NonRetryableMessageException("v" + m.aggregateVersion() + " breaks its contract");
            }
            if (m.headers().containsKey("flaky")) {
                throw new IllegalStateException("v" + m.aggregateVersion() + " always fails");
            }
            effects.record("test-consumer", m.aggregateId(), m.aggregateVersion(), m.messageId());
        };
        ConsumerRunner c = instance(settings(10, 3), handler);
        String h1 = UUID.randomUUID().toString();
        String h2 = UUID.randomUUID().toString();
        String h3 = UUID.randomUUID().toString();
        String r1 = UUID.randomUUID().toString();
        String r2 = UUID.randomUUID().toString();
        broker.withChannel(ch -> {
            try {
                publish(ch, props(h2, "h", 2L, Map.of("poison", true))); // non-retryable
                publish(ch, props(h3, "h", 3L, Map.of())); // valid, but behind the poison one
                publish(ch, props(r2, "r", 2L, Map.of("flaky", true))); // retryable, fails every time
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        await().atMost(WAIT).until(() -> c.stats().held() == 3);
        broker.withChannel(ch -> {
            try {
                publish(ch, props(h1, "h", 1L, Map.of()));
                publish(ch, props(r1, "r", 1L, Map.of()));
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        await().atMost(WAIT).until(() -> c.stats().deadLettered() == 2);

        assertEquals(List.of(1L), effects.versionsInApplyOrder("h"), "h v1 applied, the poison v2 is not");
        assertEquals(List.of(1L), effects.versionsInApplyOrder("r"), "r v1 applied, the failing v2 is not");
        assertEquals(2, c.stats().applied());
        assertEquals(1L, db.scalar("SELECT last_version FROM consumer_aggregate_positions WHERE aggregate_id = 'h'"));
        assertEquals(1L, db.scalar("SELECT last_version FROM consumer_aggregate_positions WHERE aggregate_id = 'r'"));
        assertEquals(
                List.of(3L),
                db.rows("SELECT aggregate_version FROM consumer_held_messages").stream()
                        .map(r -> r.get("aggregate_version"))
                        .toList(),
                "h v3 stays held behind the poison v2");

        Map<String, Map<String, Object>> dead = new HashMap<>();
        try (Channel ch = broker.connection().createChannel()) {
            GetResponse r;
            while ((r = ch.basicGet(DLQ, true)) != null) {
                dead.put(r.getProps().getMessageId(), r.getProps().getHeaders());
            }
        }
        assertEquals(java.util.Set.of(h2, r2), dead.keySet(), "only the held messages that fail are dead letters");
        assertTrue(
                dead.get(h2).get(DeadLetters.REASON).toString().contains("v2 breaks its contract"),
                dead.get(h2).toString());
        assertEquals(1, ((Number) dead.get(h2).get(DeadLetters.ATTEMPTS)).intValue());
        assertTrue(
                dead.get(r2).get(DeadLetters.REASON).toString().contains("IllegalStateException: v2 always fails"),
                dead.get(r2).toString());
        assertEquals(3, ((Number) dead.get(r2).get(DeadLetters.ATTEMPTS)).intValue(), "retried, then moved");
        assertEquals(2, db.count("SELECT count(*) FROM processed_messages WHERE message_id IN (?, ?)", h1, r1));
        assertEquals(
                0,
                db.count("SELECT count(*) FROM processed_messages WHERE message_id IN (?, ?)", h2, r2),
                "a dead-lettered held message is forgotten, so replaying it from the DLQ applies it");
        assertNotNull(db.scalar("SELECT dead_lettered_at FROM consumer_failures WHERE message_id = ?", h2));
    }

    /** A handler that records its effect, except for messages marked {@code slow}: PostgreSQL cancels those (57014). */
    private MessageHandler timingOutHandler() {
        AppliedEffectMapper effects = injector.getInstance(AppliedEffectMapper.class);
        return m -> {
            if (m.headers().containsKey("slow")) {
                effects.statementTimeoutForThisTransaction("100ms");
                effects.sleep(2);
            }
            effects.record("test-consumer", m.aggregateId(), m.aggregateVersion(), m.messageId());
        };
    }

    @Test
    void aMessageWhoseHandlerAlwaysOutrunsTheStatementTimeoutIsCountedAndDeadLetteredAfterMaxAttempts()
            throws Exception {
        ConsumerRunner c = instance(settings(10, 3), timingOutHandler());
        String slowId = UUID.randomUUID().toString();
        broker.withChannel(ch -> {
            try {
                publish(ch, props(slowId, "slow", null, Map.of("slow", true)));
                publish(ch, props(UUID.randomUUID().toString(), "fast", null, Map.of()));
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        // the database answers; it refuses this statement every time: a failed attempt, not an outage
        await().atMost(WAIT)
                .until(() -> c.stats().deadLettered() == 1 && c.stats().applied() == 1);
        assertEquals(3, c.stats().failures(), "counted like any failure, then moved");
        GetResponse dead = getOne(DLQ);
        assertEquals(slowId, dead.getProps().getMessageId());
        String reason = dead.getProps().getHeaders().get(DeadLetters.REASON).toString();
        assertTrue(reason.contains("57014"), reason);
        assertEquals(0, db.count("SELECT count(*) FROM processed_messages WHERE message_id = ?", slowId));
    }

    @Test
    void aHeldSuccessorWhoseHandlerAlwaysOutrunsTheStatementTimeoutIsDeadLetteredAlone() throws Exception {
        ConsumerRunner c = instance(settings(10, 3), timingOutHandler());
        String v1 = UUID.randomUUID().toString();
        String v2 = UUID.randomUUID().toString();
        broker.withChannel(ch -> {
            try {
                publish(ch, props(v2, "w", 2L, Map.of("slow", true)));
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        await().atMost(WAIT).until(() -> c.stats().held() == 1);
        broker.withChannel(ch -> {
            try {
                publish(ch, props(v1, "w", 1L, Map.of()));
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        await().atMost(WAIT)
                .until(() -> c.stats().deadLettered() == 1 && c.stats().applied() == 1);
        assertEquals(0, c.stats().requeued(), "v1 committed: it is not requeued as if the database were away");
        assertEquals(
                List.of(1L), injector.getInstance(AppliedEffectMapper.class).versionsInApplyOrder("w"));
        GetResponse dead = getOne(DLQ);
        assertEquals(v2, dead.getProps().getMessageId());
        assertEquals(3, ((Number) dead.getProps().getHeaders().get(DeadLetters.ATTEMPTS)).intValue());
    }

    @Test
    void aHeldSuccessorThatCannotBeReadIsCountedAndItsCommittedPredecessorIsAcked() throws Exception {
        ConsumerRunner c = instance(settings(10, 3), recordingHandler());
        String v1 = UUID.randomUUID().toString();
        String v2 = UUID.randomUUID().toString();
        broker.withChannel(ch -> {
            try {
                publish(ch, props(v2, "b", 2L, Map.of()));
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        await().atMost(WAIT).until(() -> c.stats().held() == 1);
        // a schema that is not what the consumer expects: reading the held message fails (42703), not
        // because the database is away, and the same way on every try
        db.execute("ALTER TABLE consumer_held_messages RENAME COLUMN body TO body_moved");
        try {
            broker.withChannel(ch -> {
                try {
                    publish(ch, props(v1, "b", 1L, Map.of()));
                } catch (Exception e) {
                    throw new java.io.IOException(e);
                }
            });
            await().atMost(WAIT)
                    .until(() -> c.stats().deliveryErrors() == 1 && c.stats().applied() == 1);
        } finally {
            db.execute("ALTER TABLE consumer_held_messages RENAME COLUMN body_moved TO body");
        }
        assertEquals(0, c.stats().requeued(), "its redelivery would be a duplicate failing the same way, for ever");
        assertEquals(0, c.stats().deadLettered(), "v1 was applied: it is no dead letter");
        assertEquals(0, broker.messageCount(DLQ));
        assertEquals(0, broker.messageCount(QUEUE));
        assertEquals(
                List.of(1L), injector.getInstance(AppliedEffectMapper.class).versionsInApplyOrder("b"));
        assertEquals(
                1,
                db.count("SELECT count(*) FROM consumer_held_messages WHERE message_id = ?", v2),
                "v2 stays held for the aggregate's next delivery, or an operator");
    }

    @Test
    void aHeldMessageSettledByAnotherInstanceMeanwhileIsNotCountedAsDeadLettered() throws Exception {
        MessageHandler handler = m -> {
            if (m.headers().containsKey("poison")) {
                throw new NonRetryableMessageException("v" + m.aggregateVersion() + " breaks its contract");
            }
        };
        ConsumerRunner c = instance(settings(10, 3), handler);
        String v1 = UUID.randomUUID().toString();
        String v2 = UUID.randomUUID().toString();
        broker.withChannel(ch -> {
            try {
                publish(ch, props(v2, "x", 2L, Map.of("poison", true)));
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        });
        await().atMost(WAIT).until(() -> c.stats().held() == 1);
        // The first DELETE of the held row is the apply's (rolled back when the handler throws); at the
        // second, the discard after the forward to the DLQ, another instance takes the row first.
        db.execute("CREATE SEQUENCE test_held_deletes");
        db.execute("CREATE FUNCTION test_settled_elsewhere() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " IF OLD.message_id = '" + v2 + "' AND nextval('test_held_deletes') = 2 THEN"
                + " DELETE FROM consumer_held_messages WHERE consumer_name = OLD.consumer_name"
                + " AND message_id = OLD.message_id; RETURN NULL; END IF; RETURN OLD; END $$");
        db.execute("CREATE TRIGGER test_settled_elsewhere BEFORE DELETE ON consumer_held_messages FOR EACH ROW"
                + " EXECUTE FUNCTION test_settled_elsewhere()");
        try {
            broker.withChannel(ch -> {
                try {
                    publish(ch, props(v1, "x", 1L, Map.of()));
                } catch (Exception e) {
                    throw new java.io.IOException(e);
                }
            });
            await().atMost(WAIT).until(() -> c.stats().applied() == 1);
        } finally {
            db.execute("DROP TRIGGER IF EXISTS test_settled_elsewhere ON consumer_held_messages");
            db.execute("DROP FUNCTION IF EXISTS test_settled_elsewhere()");
            db.execute("DROP SEQUENCE IF EXISTS test_held_deletes");
        }
        assertEquals(0, c.stats().deadLettered(), "the other instance settled it; this one did not dead-letter it");
        assertEquals(0, db.count("SELECT count(*) FROM consumer_held_messages"));
        assertEquals(
                0,
                db.count(
                        "SELECT count(*) FROM consumer_failures WHERE message_id = ?"
                                + " AND dead_lettered_at IS NOT NULL",
                        v2),
                "not noted as dead-lettered by this consumer");
        assertEquals(1, broker.messageCount(DLQ), "the copy forwarded before the discard found the row gone");
    }

    private GetResponse getOne(String queue) throws Exception {
        try (Channel ch = broker.connection().createChannel()) {
            GetResponse r = ch.basicGet(queue, true);
            assertNotNull(r, "a message on " + queue);
            return r;
        }
    }
}
