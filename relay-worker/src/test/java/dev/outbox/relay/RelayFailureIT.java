package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.messaging.Topology;
import dev.outbox.testkit.RabbitAdmin;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.RequiresRabbitMq;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every row of the failure table, each caused for real: a TCP proxy that refuses, resets or
 * stalls the broker connection; a queue that rejects publishes; a missing exchange; a RabbitMQ
 * user without write permission; and a relay whose lease runs out before it records its outcome.
 */
class RelayFailureIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Fast retries, same budget shape: the tests must not wait for the production 10 s/1 min steps. */
    private static final String FAST_BACKOFF = "0s,100ms,100ms,100ms,100ms,100ms,100ms,100ms";

    // registered first, so closed last: after the resources the test started
    @RegisterExtension
    @Order(1)
    final OutboxFixtures fx =
            OutboxFixtures.create().reset().exchange().topology().purgeLedger();

    @RegisterExtension
    @Order(2)
    final TestResources closing = new TestResources();

    private <T extends AutoCloseable> T closeLater(T c) {
        closing.add(c);
        return c;
    }

    private RelayApp relay(String... env) {
        return closeLater(RelayApp.start(new Settings(fx.env(env))));
    }

    private TcpProxy brokerProxy() throws Exception {
        return closeLater(TcpProxy.start(fx.broker.host(), fx.broker.port()));
    }

    private List<UUID> orders(int n) {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fx.placeAndCapture(MessageContext.none()).forEach(r -> ids.add(r.id()));
        }
        return ids;
    }

    private void bulkRows(int n) {
        fx.bulkRows(n);
    }

    private OutboxRecord row(UUID id) {
        return fx.store().find(id).orElseThrow();
    }

    private long count(String where) {
        return fx.count(where);
    }

    @Test
    void brokerUnavailableTheRelayClaimsNothingBurnsNoAttemptAndResumesByItself() throws Exception {
        TcpProxy proxy = brokerProxy();
        RelayApp relay = relay(
                "OUTBOX_AMQP_URI",
                fx.broker.uriVia(proxy.host(), proxy.port()),
                "OUTBOX_RELAY_RECONNECT_INITIAL",
                "200ms",
                "OUTBOX_RELAY_RECONNECT_MAX",
                "2s");
        await().atMost(WAIT).until(() -> relay.session().isAvailable());

        proxy.cut();
        await().atMost(WAIT).until(() -> !relay.session().isAvailable());
        List<UUID> written = orders(20); // business transactions go on while the broker is away
        int attemptsBefore = proxy.rejected();
        // for the whole outage: nothing claimed, no attempt burned, nothing parked
        await().during(Duration.ofSeconds(4))
                .atMost(Duration.ofSeconds(5))
                .until(() -> count("status = 'PENDING' AND attempt_count = 0 AND locked_by IS NULL") == written.size());
        int reconnects = proxy.rejected() - attemptsBefore;
        assertTrue(
                reconnects >= 2 && reconnects <= 10,
                "capped exponential reconnects, not a storm: " + reconnects + " attempts in 4 s");
        String why = relay.session().lastError();
        // the refused reconnects (or the loss itself), never a leftover such as "not connected yet"
        assertTrue(why.matches("(?i).*(connection reset|connection refused|connection lost).*"), why);

        proxy.restore();
        await().atMost(WAIT).until(() -> count("status = 'PUBLISHED'") == written.size());
        assertEquals(written.size(), count("attempt_count = 1"), "the outage cost no row an attempt");
        assertEquals(0, count("status = 'PARKED'"));
    }

    @Test
    @RequiresRabbitMq(
            value = "a memory alarm raised with rabbitmqctl blocks publishing connections",
            rabbitmqctl = true)
    void brokerBlockedTheRelayClaimsNothingWhileBlockedAndResumesWhenUnblocked() throws Exception {
        RelayApp relay = relay();
        await().atMost(WAIT).until(() -> relay.session().isAvailable());
        List<UUID> trigger = new ArrayList<>();
        List<UUID> during = new ArrayList<>();
        // the broker is shared with other suites: the alarm lasts a few seconds, also when this test fails
        Duration bounded = Duration.ofSeconds(8);
        try {
            // a memory alarm: RabbitMQ blocks a connection at its next publish and sends connection.blocked
            RabbitAdmin.run("set_vm_memory_high_watermark", "0");
            trigger.addAll(orders(1)); // the relay claims and sends these, and the broker blocks it
            await().atMost(bounded).until(() -> !relay.session().isAvailable());
            assertTrue(
                    relay.session().lastError().startsWith("blocked by broker"),
                    relay.session().lastError());
            long claimed = relay.relay().stats().claimed();
            during.addAll(orders(3));
            await().during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> during.stream()
                            .map(this::row)
                            .allMatch(r -> r.is(OutboxStatus.PENDING) && r.attemptCount() == 0));
            assertEquals(claimed, relay.relay().stats().claimed(), "the open circuit claimed nothing");
        } finally {
            RabbitAdmin.run("set_vm_memory_high_watermark", "0.4");
        }
        await().atMost(WAIT).until(() -> relay.session().isAvailable());
        await().atMost(WAIT).until(() -> count("status = 'PUBLISHED'") == trigger.size() + during.size());
        for (UUID id : during) {
            assertEquals(1, row(id).attemptCount(), "the block cost the waiting rows no attempt");
        }
    }

    @Test
    void connectionLostMidBatchTheUnconfirmedRowsAreRetriedAndAllArePublished() throws Exception {
        int rows = 20_000;
        bulkRows(rows);
        try (RecordingQueue ignored = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "bulk.#")) {
            TcpProxy proxy = brokerProxy();
            RelayApp relay = relay(
                    "OUTBOX_AMQP_URI",
                    fx.broker.uriVia(proxy.host(), proxy.port()),
                    "OUTBOX_RELAY_BACKOFF",
                    FAST_BACKOFF,
                    "OUTBOX_RELAY_RECONNECT_INITIAL",
                    "100ms");
            await().atMost(WAIT).until(() -> count("status = 'PUBLISHED'") > 2_000);
            // hold the bytes so that messages are provably in flight, then reset the TCP connection
            proxy.stall();
            // in flight and staying there: a confirm the proxy had already read when the stall began
            // still goes through, and a batch at its end could settle before the reset (the test
            // then found no row failed; more often once the proxy set TCP_NODELAY)
            await().atMost(WAIT)
                    .during(Duration.ofMillis(500))
                    .until(() -> relay.relay().inFlight() > 0);
            proxy.resetAll();
            proxy.resume();
            await().atMost(Duration.ofSeconds(60)).until(() -> count("status = 'PUBLISHED'") == rows);
            long lost = count("last_error_code = 'CONNECTION_LOST'");
            assertTrue(lost > 0, "in-flight rows were failed as CONNECTION_LOST and then published");
            assertEquals(lost, count("last_error_code = 'CONNECTION_LOST' AND attempt_count = 2"));
            assertEquals(0, count("status = 'PARKED'"));
            assertTrue(relay.relay().stats().failures(ErrorCode.CONNECTION_LOST) >= lost);
            assertTrue(proxy.accepted() >= 2, "the relay reconnected by itself");
        }
    }

    @Test
    void confirmTimeoutAStalledConnectionFailsTheInFlightRowsWhichArePublishedLater() throws Exception {
        bulkRows(3_000);
        try (RecordingQueue ignored = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "bulk.#")) {
            TcpProxy proxy = brokerProxy();
            relay(
                    "OUTBOX_AMQP_URI",
                    fx.broker.uriVia(proxy.host(), proxy.port()),
                    "OUTBOX_RELAY_CONFIRM_TIMEOUT",
                    "1s",
                    "OUTBOX_RELAY_LEASE",
                    "10s",
                    "OUTBOX_RELAY_BACKOFF",
                    FAST_BACKOFF,
                    "OUTBOX_RELAY_BATCH_SIZE",
                    "50",
                    "OUTBOX_RELAY_CONFIRM_WINDOW",
                    "100",
                    "OUTBOX_AMQP_CONNECT_TIMEOUT",
                    "1s");
            await().atMost(WAIT).until(() -> count("status = 'PUBLISHED'") > 200);
            proxy.stall(); // bytes stop; sockets stay open; no confirm can arrive
            await().atMost(WAIT).until(() -> count("last_error_code = 'CONFIRM_TIMEOUT'") > 0);
            proxy.resume();
            await().atMost(Duration.ofSeconds(60)).until(() -> count("status = 'PUBLISHED'") == 3_000);
            assertEquals(0, count("status = 'PARKED'"));
            assertEquals(0, count("status = 'IN_PROGRESS'"));
        }
    }

    @Test
    @RequiresRabbitMq("x-overflow=reject-publish makes RabbitMQ nack; other brokers refuse the argument")
    void nackedAQueueThatRejectsPublishesMakesTheBrokerNackAndTheRowIsRetried() throws Exception {
        String exchange = "outbox.test.nacks";
        String queue = "outbox.test.full-queue";
        fx.broker.declareTopicExchange(exchange);
        fx.broker.deleteQueue(queue);
        fx.broker.withChannel(ch -> {
            Map<String, Object> args = new HashMap<>();
            args.put("x-max-length", 1);
            args.put("x-overflow", "reject-publish");
            ch.queueDeclare(queue, true, false, false, args);
            ch.queueBind(queue, exchange, "full");
        });
        try {
            List<UUID> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(fx.insertRaw("test.full", "full", exchange, "{\"n\":" + i + "}"));
            }
            relay("OUTBOX_RELAY_BACKOFF", "0s,10h", "OUTBOX_RELAY_BATCH_SIZE", "1");
            await().atMost(WAIT).until(() -> count("status IN ('PUBLISHED', 'RETRYABLE_FAILED')") == 3);
            assertEquals(1, count("status = 'PUBLISHED'"), "the queue took one message");
            // due again at a jittered time in (now, now + 1 h]: retried, not parked
            assertEquals(
                    2,
                    count("status = 'RETRYABLE_FAILED' AND last_error_code = 'NACKED'"
                            + " AND next_attempt_at > now() AND attempt_count = 1"),
                    "the others were nacked, due later");
        } finally {
            fx.broker.deleteQueue(queue);
            fx.broker.deleteExchange(exchange);
        }
    }

    @Test
    void unroutableAndMissingExchangeAreParkedWithoutBlockingTheRestOfTheBatch() throws Exception {
        try (RecordingQueue q = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#")) {
            List<UUID> good = new ArrayList<>(orders(10));
            UUID noRoute = fx.insertRaw("test.unrouted", "no.binding.here", "outbox.test.unbound", "{}");
            fx.broker.declareTopicExchange("outbox.test.unbound");
            UUID noExchange = fx.insertRaw("test.lost", "anything", "outbox.test.does-not-exist", "{}");
            good.addAll(orders(10));
            RelayApp relay = relay("OUTBOX_RELAY_BATCH_SIZE", "100");
            await().atMost(WAIT).until(() -> count("status = 'PUBLISHED'") == good.size());
            await().atMost(WAIT).until(() -> count("status = 'PARKED'") == 2);
            assertEquals(ErrorCode.UNROUTABLE.name(), row(noRoute).lastErrorCode());
            assertEquals(ErrorCode.EXCHANGE_NOT_FOUND.name(), row(noExchange).lastErrorCode());
            assertTrue(
                    row(noExchange).lastErrorMessage().contains("404"),
                    row(noExchange).lastErrorMessage());
            // messages in flight when the broker closed the channel are published again one by one:
            // at least once, with their own ids
            assertEquals(
                    good.stream().map(UUID::toString).sorted().toList(),
                    q.await(good.size(), WAIT).stream()
                            .map(TestBroker.Received::messageId)
                            .distinct()
                            .sorted()
                            .toList());
            assertEquals(0, relay.relay().stats().lostLeases(), "no row got two outcomes");
        } finally {
            fx.broker.deleteExchange("outbox.test.unbound");
        }
    }

    @Test
    @RequiresRabbitMq(value = "a user with limited permissions, made with rabbitmqctl", rabbitmqctl = true)
    void accessRefusedAUserWithoutWritePermissionGetsTheRowParkedAndOthersStillFlow() throws Exception {
        String user = "outbox-test-limited";
        String vhost = RabbitAdmin.vhostOf(fx.broker.uri());
        String forbidden = "outbox.test.forbidden";
        fx.broker.declareTopicExchange(forbidden);
        fx.broker.withChannel(ch -> {
            String q = ch.queueDeclare("", false, true, true, null).getQueue();
            ch.queueBind(q, forbidden, "#");
        });
        RabbitAdmin.run("add_user", user, "limited-pw");
        try {
            // configure and read anything; write (publish) only to orders.events
            RabbitAdmin.run("set_permissions", "-p", vhost, user, ".*", "^orders\\.events$", ".*");
            List<UUID> good = orders(5);
            UUID refused = fx.insertRaw("test.refused", "x", forbidden, "{}");
            relay("OUTBOX_AMQP_URI", fx.broker.uriAs(user, "limited-pw"), "OUTBOX_RELAY_DECLARE_TOPOLOGY", "false");
            await().atMost(WAIT).until(() -> row(refused).is(OutboxStatus.PARKED));
            assertEquals(ErrorCode.ACCESS_REFUSED.name(), row(refused).lastErrorCode());
            assertTrue(
                    row(refused).lastErrorMessage().contains("403"),
                    row(refused).lastErrorMessage());
            await().atMost(WAIT).until(() -> count("status = 'PUBLISHED'") == good.size());
        } finally {
            RabbitAdmin.run("delete_user", user);
            fx.broker.deleteExchange(forbidden);
        }
    }

    /**
     * The claim's commit is written and its answer lost: the proxy lets the COMMIT after the claim
     * through, throws the server's reply away and resets the connection. The rows are leased to a relay that is
     * alive and holds its liveness lock, so no peer's sweep takes them, and the lease is 10
     * minutes: only the relay itself can give them back, and it does at once.
     */
    @Test
    void claimCommitUnansweredTheLeasedRowsAreGivenBackAtOnceNotAfterTheLease() throws Exception {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(fx.insertRaw("test.unanswered", "test.unanswered", Topology.ORDERS_EXCHANGE, "{\"n\":" + i + "}"));
        }
        TcpProxy toDatabase = closeLater(TcpProxy.start(fx.db.host(), fx.db.port()));
        toDatabase.loseTheAnswerToTheRequestAfter("message_outbox_lease_token_seq");
        try (RecordingQueue q = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#")) {
            RelayApp relay = relay(
                    "OUTBOX_RELAY_ID",
                    "relay-unanswered",
                    "OUTBOX_DB_URL",
                    fx.db.urlVia(toDatabase.host(), toDatabase.port()),
                    "OUTBOX_RELAY_LEASE",
                    "10m",
                    "OUTBOX_RELAY_STALE_CHECK_INTERVAL",
                    "1h");
            await().atMost(WAIT).until(() -> count("status = 'PUBLISHED'") == ids.size());
            assertEquals(1, toDatabase.answersLost(), "the claim's commit was answered into the void once");
            assertEquals(ids.size(), relay.relay().stats().released(), "each row given back once, by the relay itself");
            assertEquals(0, relay.relay().stats().staleLeasesRecovered());
            assertEquals(
                    ids.size(), count("status = 'PUBLISHED' AND attempt_count = 1"), "the lost claim did not count");
            assertEquals(
                    ids.size(),
                    q.await(ids.size(), WAIT).stream()
                            .map(TestBroker.Received::messageId)
                            .distinct()
                            .count());
        }
    }

    @Test
    void staleLockALateMarkFromARelayThatLostItsLeaseIsRefused() throws Exception {
        // rows without a version, so that ordering does not hold any of them back behind A's marks
        List<UUID> ids = new ArrayList<>();
        try (RecordingQueue q = fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "#")) {
            // relay A reaches both the broker and the database through proxies the test can freeze
            TcpProxy aToBroker = brokerProxy();
            TcpProxy aToDatabase = closeLater(TcpProxy.start(fx.db.host(), fx.db.port()));
            RelayApp a = relay(
                    "OUTBOX_RELAY_ID",
                    "relay-a",
                    "OUTBOX_AMQP_URI",
                    fx.broker.uriVia(aToBroker.host(), aToBroker.port()),
                    "OUTBOX_DB_URL",
                    fx.db.urlVia(aToDatabase.host(), aToDatabase.port()),
                    "OUTBOX_RELAY_LEASE",
                    "10s",
                    "OUTBOX_RELAY_CONFIRM_TIMEOUT",
                    "3s",
                    "OUTBOX_RELAY_STALE_CHECK_INTERVAL",
                    "1h");
            await().atMost(WAIT)
                    .until(() ->
                            fx.db.count("SELECT count(*) FROM outbox_relay_waiters" + " WHERE relay_id = 'relay-a'")
                                    == 1);
            aToBroker.stall(); // A's publishes wait on the wire until its database is frozen
            for (int i = 0; i < 10; i++) {
                ids.add(fx.insertRaw("test.fenced", "test.fenced", Topology.ORDERS_EXCHANGE, "{\"n\":" + i + "}"));
            }
            await().atMost(WAIT).until(() -> count("status = 'IN_PROGRESS' AND locked_by = 'relay-a'") == ids.size());
            aToDatabase.stall();
            aToBroker.resume();
            // A gets every confirm; its marks are stuck on the way to PostgreSQL
            await().atMost(WAIT).until(() -> a.relay().stats().published() == ids.size());
            aToBroker.cut(); // and then it loses the broker, so it claims nothing more
            assertEquals(ids.size(), count("status = 'IN_PROGRESS' AND locked_by = 'relay-a'"));
            // relay B recovers the expired leases, publishes again and records PUBLISHED first
            RelayApp b = relay(
                    "OUTBOX_RELAY_ID",
                    "relay-b",
                    "OUTBOX_RELAY_LEASE",
                    "2s",
                    "OUTBOX_RELAY_CONFIRM_TIMEOUT",
                    "500ms",
                    "OUTBOX_RELAY_STALE_CHECK_INTERVAL",
                    "100ms");
            await().atMost(WAIT).until(() -> count("status = 'PUBLISHED' AND published_at IS NOT NULL") == ids.size());
            assertEquals(ids.size(), b.relay().stats().staleLeasesRecovered());
            assertEquals(ids.size(), b.relay().stats().published());
            assertEquals(ids.size(), count("last_error_code = 'STALE_LOCK' AND attempt_count = 2"));
            // A's marks arrive late and change nothing: every one is refused by the fence and counted
            aToDatabase.restore();
            await().atMost(Duration.ofSeconds(60)).until(() -> a.relay().stats().lostLeases() == ids.size());
            assertEquals(ids.size(), count("status = 'PUBLISHED'"));
            List<TestBroker.Received> got = q.await(2 * ids.size(), WAIT);
            assertEquals(2 * ids.size(), got.size(), "each was sent twice");
            assertEquals(
                    ids.size(),
                    got.stream().map(TestBroker.Received::messageId).distinct().count(),
                    "with the same messageId both times");
        }
    }
}
