package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.messaging.Topology;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The relay in-process against real PostgreSQL and RabbitMQ: the happy path and the basic failure paths. */
class RelayIT {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().exchange().purgeLedger();

    private final TestResources closing = fx.resources();

    private RelayApp startRelay(String... env) {
        RelayApp app = RelayApp.start(new Settings(fx.env(env)));
        closing.add(app);
        return app;
    }

    @Test
    void confirmedRowsArePublishedWithEveryPropertyAndHeaderOfTheContract() throws Exception {
        RecordingQueue queue = fx.observe("order.created", "payment.captured");
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        MessageContext ctx = new MessageContext("corr-42", "cause-7", traceparent, "tenant-a");
        List<NewOutboxMessage> rows = fx.placeAndCapture(ctx);

        startRelay();
        List<TestBroker.Received> got = queue.await(2, WAIT);
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == 2);

        NewOutboxMessage captured = rows.get(1);
        TestBroker.Received m = got.stream()
                .filter(r -> r.messageId().equals(captured.id().toString()))
                .findFirst()
                .orElseThrow();
        AMQP.BasicProperties p = m.delivery().getProperties();
        assertEquals(captured.id().toString(), p.getMessageId());
        assertEquals(2, p.getDeliveryMode());
        assertEquals("application/json", p.getContentType());
        assertEquals("payment.captured", p.getType());
        assertEquals("corr-42", p.getCorrelationId());
        assertNotNull(p.getTimestamp());
        assertEquals("payment.captured", m.header("message_type"));
        assertEquals(1, ((Number) m.header("message_version")).intValue());
        assertEquals("order", m.header("aggregate_type"));
        assertEquals(captured.aggregateId(), m.header("aggregate_id"));
        assertEquals(2L, ((Number) m.header("aggregate_version")).longValue());
        assertEquals("tenant-a", m.header("tenant_id"));
        assertEquals("cause-7", m.header("causation_id"));
        assertEquals(traceparent, m.header("traceparent"));
        assertEquals("orders.events", m.delivery().getEnvelope().getExchange());
        assertEquals("payment.captured", m.delivery().getEnvelope().getRoutingKey());
        String stored = (String) fx.db.scalar("SELECT payload::text FROM message_outbox WHERE id = ?", captured.id());
        assertEquals(stored, new String(m.delivery().getBody(), StandardCharsets.UTF_8), "body is the snapshot");

        OutboxRecord row = fx.store().find(captured.id()).orElseThrow();
        assertEquals(OutboxStatus.PUBLISHED.name(), row.status());
        assertNotNull(row.publishedAt());
        assertEquals(1, row.attemptCount());
        assertEquals(null, row.lockedBy());
    }

    @Test
    void rowsWrittenWhileNoRelayRanArePublishedWhenOneStarts() throws Exception {
        // the crash-after-commit-before-publish window: the rows are committed, nothing publishes them
        RecordingQueue queue = fx.observe("#");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            fx.placeAndCapture(MessageContext.none()).forEach(r -> ids.add(r.id().toString()));
        }
        assertEquals(100, fx.countByStatus("PENDING"));

        startRelay();
        List<TestBroker.Received> got = queue.await(100, WAIT);
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == 100);
        assertEquals(
                ids.stream().sorted().toList(),
                got.stream().map(TestBroker.Received::messageId).sorted().toList());
    }

    @Test
    void aRowInsertedByAnySqlClientIsPublishedLikeAnyOther() throws Exception {
        RecordingQueue queue = fx.observe("inventory.reserved");
        UUID id = fx.insertRaw("inventory.reserved", "inventory.reserved", Topology.ORDERS_EXCHANGE, "{\"sku\":\"A\"}");
        startRelay();
        assertEquals(id.toString(), queue.await(1, WAIT).get(0).messageId());
        await().atMost(WAIT).until(() -> fx.status(id).equals("PUBLISHED"));
    }

    @Test
    void anUnroutableRowIsParkedAndNeverMarkedPublished() {
        UUID id = fx.insertRaw("inventory.reserved", "no.such.binding", Topology.ORDERS_EXCHANGE, "{}");
        startRelay();
        await().atMost(WAIT).until(() -> fx.status(id).equals("PARKED"));
        OutboxRecord r = fx.store().find(id).orElseThrow();
        assertEquals(ErrorCode.UNROUTABLE.name(), r.lastErrorCode());
        assertTrue(r.lastErrorMessage().contains("312"), r.lastErrorMessage());
        assertEquals(null, r.publishedAt());
    }

    @Test
    void aPayloadThatBreaksItsContractIsParkedWithoutBeingSent() throws Exception {
        RecordingQueue queue = fx.observe("#");
        UUID bad = fx.insertRaw(
                "payment.captured", "payment.captured", Topology.ORDERS_EXCHANGE, "{\"orderId\":\"not-a-uuid\"}");
        List<NewOutboxMessage> good = fx.placeAndCapture(MessageContext.none());
        startRelay();
        await().atMost(WAIT).until(() -> fx.status(bad).equals("PARKED"));
        assertEquals(
                ErrorCode.PAYLOAD_INVALID.name(),
                fx.store().find(bad).orElseThrow().lastErrorCode());
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == 2);
        List<TestBroker.Received> got = queue.await(2, WAIT);
        assertEquals(
                List.of(),
                got.stream().filter(r -> r.messageId().equals(bad.toString())).toList(),
                "the bad row was never sent");
        assertEquals(
                Map.of(ErrorCode.PAYLOAD_INVALID, 1L), Map.of(ErrorCode.PAYLOAD_INVALID, fx.countByStatus("PARKED")));
        assertEquals(good.size(), 2);
    }
}
