package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.outbox.MessageContext;
import dev.outbox.config.Settings;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.messaging.Topology;
import dev.outbox.relay.cdc.CdcTestSupport;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rows a newer version wrote while this relay runs beside it (issue 42), against real PostgreSQL
 * and RabbitMQ: a due row whose last error code this version does not know ({@code FUTURE_727}) is
 * claimed like any other, published, and its outcome recorded in this version's words; a row in a
 * status this version does not know ({@code ARCHIVED}) is never claimed, sent or changed, in
 * polling mode and on the CDC stream alike, and the relay's gauges count it under its own name.
 * Before, one such row made every claim fail and the relay stopped publishing.
 */
class NewerVersionRowsIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String SLOT = "newer_version_rows_it";

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().exchange().purgeLedger();

    private final TestResources closing = fx.resources();

    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void close() throws Exception {
        closing.closeAll();
        CdcTestSupport.awaitUnreadAndDrop(fx.db, SLOT);
    }

    /** A relay in CDC mode on a fresh slot, once it reads the stream. */
    private RelayApp startCdcRelay() {
        CdcTestSupport.freshStart(fx.db, fx.broker, SLOT);
        fx.db.update("DELETE FROM outbox_cdc_position");
        RelayApp relay = startRelay(
                "OUTBOX_RELAY_MODE",
                "cdc",
                "OUTBOX_RELAY_CDC_SLOT",
                SLOT,
                "OUTBOX_RELAY_CDC_TICK_INTERVAL",
                "200ms",
                "OUTBOX_RELAY_POLL_INTERVAL",
                "200ms");
        await().atMost(WAIT).until(() -> relay.cdc().reading());
        return relay;
    }

    private RelayApp startRelay(String... env) {
        RelayApp app = RelayApp.start(new Settings(fx.env(env)));
        closing.add(app);
        return app;
    }

    @Test
    void aDueRowWithANewerCodeIsPublishedAndARowInANewerStatusIsLeftAlone() throws Exception {
        RecordingQueue queue = fx.observe("#");
        List<NewOutboxMessage> coded = fx.placeAndCapture(MessageContext.none());
        List<NewOutboxMessage> beforeArchived = fx.placeAndCapture(MessageContext.none());
        UUID retried = coded.get(0).id();
        UUID pendingWithCode = coded.get(1).id();
        UUID published = beforeArchived.get(0).id();
        // the last version of its aggregate, so that nothing waits behind it
        UUID archived = beforeArchived.get(1).id();
        fx.db.update(
                "UPDATE message_outbox SET status = 'RETRYABLE_FAILED', attempt_count = 1, last_error_code = 'FUTURE_727',"
                        + " last_error_message = 'written by a newer version' WHERE id = ?",
                retried);
        fx.db.update("UPDATE message_outbox SET last_error_code = 'FUTURE_727' WHERE id = ?", pendingWithCode);
        fx.db.update(
                "UPDATE message_outbox SET status = 'ARCHIVED', last_error_code = 'FUTURE_727' WHERE id = ?", archived);
        UUID bad = fx.insertRaw(
                "payment.captured", "payment.captured", Topology.ORDERS_EXCHANGE, "{\"orderId\":\"not-a-uuid\"}");
        fx.db.update(
                "UPDATE message_outbox SET status = 'RETRYABLE_FAILED', attempt_count = 1, last_error_code = 'FUTURE_727'"
                        + " WHERE id = ?",
                bad);

        RelayApp relay = startRelay();
        List<TestBroker.Received> got = new ArrayList<>(queue.await(3, WAIT));
        await().atMost(WAIT)
                .until(() ->
                        fx.countByStatus("PUBLISHED") == 3 && fx.status(bad).equals("PARKED"));

        for (UUID id : List.of(retried, pendingWithCode, published)) {
            OutboxRecord r = fx.store().find(id).orElseThrow();
            assertEquals(OutboxStatus.PUBLISHED.name(), r.status(), "row " + id);
        }
        OutboxRecord parked = fx.store().find(bad).orElseThrow();
        assertEquals(
                ErrorCode.PAYLOAD_INVALID.name(),
                parked.lastErrorCode(),
                "the relay records its own outcome over the newer version's code");
        assertEquals(2, parked.attemptCount());

        OutboxRecord left = fx.store().find(archived).orElseThrow();
        assertEquals("ARCHIVED", left.status());
        assertEquals("FUTURE_727", left.lastErrorCode());
        assertEquals(0, left.attemptCount(), "never claimed");
        assertNull(left.lockedBy());
        assertEquals(List.of(), fx.store().claim("probe", 100), "nothing left that this version claims");
        assertEquals(4, relay.relay().stats().claimed(), "the three published rows and the parked one");
        got.addAll(queue.drain());
        assertEquals(
                Set.of(retried.toString(), pendingWithCode.toString(), published.toString()),
                got.stream().map(TestBroker.Received::messageId).collect(Collectors.toSet()),
                "the row in the newer status was never sent");

        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> metrics(relay)
                        .lines()
                        .anyMatch(l -> l.startsWith("outbox_unknown_status_count{")
                                && l.contains("status=\"ARCHIVED\"")
                                && Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)) == 1.0));
    }

    @Test
    void theCdcStreamLeavesARowInANewerStatusAlone() throws Exception {
        RelayApp relay = startCdcRelay();
        RecordingQueue queue = fx.observe("#");

        // committed before the rows below, so the stream has taken it in once they are published
        UUID archived = UUID.randomUUID();
        fx.db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload, status, last_error_code) VALUES (?, 'order', ?, 'order.created',"
                        + " 'orders.events', 'order.created', '{}'::jsonb, 'ARCHIVED', 'FUTURE_727')",
                archived,
                UUID.randomUUID().toString());
        List<NewOutboxMessage> rows = fx.placeAndCapture(MessageContext.none());

        List<TestBroker.Received> got = new ArrayList<>(queue.await(rows.size(), WAIT));
        await().atMost(WAIT).until(() -> fx.countByStatus("PUBLISHED") == rows.size());
        assertEquals(rows.size() + 1, relay.cdc().streamed(), "the stream read every row, the newer one too");
        assertEquals(1, relay.cdc().leftToRetryPath(), "and left the newer one, which the retry path never claims");
        assertEquals(0, relay.relay().stats().claimed(), "the polling claim took nothing");
        OutboxRecord left = fx.store().find(archived).orElseThrow();
        assertEquals("ARCHIVED", left.status());
        assertEquals(0, left.attemptCount());
        got.addAll(queue.drain());
        assertEquals(
                rows.stream().map(r -> r.id().toString()).collect(Collectors.toSet()),
                got.stream().map(TestBroker.Received::messageId).collect(Collectors.toSet()),
                "the row in the newer status was never sent");
    }

    /**
     * Versions 1, 2 and 3 of one aggregate in one transaction, version 2 in a newer version's status:
     * the stream sends version 1 and leaves version 2; version 3, queued behind version 1, must not
     * pass version 2 once version 1 is confirmed. It goes to the retry path, whose claim holds it
     * behind the unfinished version 2.
     */
    @Test
    void aLaterVersionWaitsBehindAVersionInANewerStatusInTheCdcStream() throws Exception {
        RelayApp relay = startCdcRelay();
        RecordingQueue queue = fx.observe("#");

        String aggregate = UUID.randomUUID().toString();
        UUID v1 = UUID.randomUUID();
        UUID v2 = UUID.randomUUID();
        UUID v3 = UUID.randomUUID();
        // a payload its contract accepts, so that only the order of versions decides what is sent
        String payload = "{\"orderId\": \"" + aggregate + "\", \"customerId\": \"c-1\", \"currency\": \"EUR\","
                + " \"total\": \"25.00\", \"lines\": [{\"sku\": \"B-1\", \"quantity\": 1, \"unitPrice\": \"25.00\"}],"
                + " \"placedAt\": \"2026-11-30T10:15:30.123Z\"}";
        fx.db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload, status) VALUES"
                        + " (?, 'order', ?, 1, 'order.created', 'orders.events', 'order.created', ?::jsonb, 'PENDING'),"
                        + " (?, 'order', ?, 2, 'order.created', 'orders.events', 'order.created', ?::jsonb, 'ARCHIVED'),"
                        + " (?, 'order', ?, 3, 'order.created', 'orders.events', 'order.created', ?::jsonb, 'PENDING')",
                v1,
                aggregate,
                payload,
                v2,
                aggregate,
                payload,
                v3,
                aggregate,
                payload);

        // version 1 confirmed, and both versions behind it left to the retry path
        await().atMost(WAIT)
                .until(() -> fx.store().find(v1).orElseThrow().is(OutboxStatus.PUBLISHED)
                        && relay.cdc().leftToRetryPath() == 2);
        assertEquals(3, relay.cdc().streamed());
        assertEquals("ARCHIVED", fx.store().find(v2).orElseThrow().status());
        assertEquals("PENDING", fx.store().find(v3).orElseThrow().status(), "version 3 passed version 2");
        List<TestBroker.Received> sent = new ArrayList<>(queue.await(1, WAIT));
        sent.addAll(queue.drain());
        assertEquals(
                List.of(v1.toString()),
                sent.stream().map(TestBroker.Received::messageId).toList(),
                "only version 1 was sent");
    }

    private String metrics(RelayApp relay) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + relay.httpPort() + "/metrics"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }
}
