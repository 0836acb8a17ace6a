package dev.outbox.relay;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.jdbc.OutboxMessages;
import dev.outbox.messaging.Topology;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.outbox.OutboxStore;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Currency;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Writes outbox rows the way the application does (domain event -> contract-checked snapshot),
 * and, registered as an extension, sets up what each relay IT starts from and, after it, closes
 * what the test started ({@link #resources}) and then its own pool: {@code @RegisterExtension final OutboxFixtures fx = OutboxFixtures.create().reset().exchange();}
 * empties the outbox and declares the orders exchange before each test.
 */
public final class OutboxFixtures implements AutoCloseable, BeforeEachCallback, AfterEachCallback {
    static final Currency EUR = Currency.getInstance("EUR");

    final TestDatabase db = TestDatabase.get();
    final TestBroker broker = TestBroker.get();
    private final HikariDataSource pool;
    final Injector injector;

    private final TestResources resources = new TestResources();
    private boolean reset;
    private boolean exchange;
    private boolean topology;
    private boolean purgeLedger;

    /** Fixtures that set nothing up; add what the tests start from. */
    static OutboxFixtures create() {
        return new OutboxFixtures();
    }

    /** Before each test: an empty outbox ({@code TestDatabase.reset}). */
    OutboxFixtures reset() {
        reset = true;
        return this;
    }

    /** Before each test: the orders exchange, and nothing bound to it. */
    OutboxFixtures exchange() {
        exchange = true;
        return this;
    }

    /** Before each test: the whole product topology (exchange, consumer queues, bindings). */
    OutboxFixtures topology() {
        topology = true;
        return this;
    }

    /** Before each test: the ledger's queue emptied of what an earlier test left in it. */
    OutboxFixtures purgeLedger() {
        purgeLedger = true;
        return this;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (reset) {
            db.reset();
        }
        if (exchange) {
            broker.declareTopicExchange(Topology.ORDERS_EXCHANGE);
        }
        if (topology) {
            broker.withChannel(Topology::declare);
        }
        if (purgeLedger) {
            broker.purgeIfExists(LedgerConsumer.QUEUE);
        }
    }

    /** What the test starts (relays, queues, proxies): closed after it, newest first, before the pool. */
    TestResources resources() {
        return resources;
    }

    /** A queue bound to the orders exchange with {@code keys}, recording what reaches it; closed after the test. */
    RecordingQueue observe(String... keys) {
        return resources.add(broker.bindQueue(Topology.ORDERS_EXCHANGE, keys));
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            resources.closeAll();
        } finally {
            close();
        }
    }

    OutboxFixtures() {
        pool = DataSources.create(DatabaseConfig.of(db.url(), db.user(), db.password(), "relay-it-fixtures")
                .withPoolSize(4));
        injector = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30)));
    }

    OutboxStore store() {
        return injector.getInstance(OutboxStore.class);
    }

    /** The environment for a relay or consumer under test, plus overrides. */
    Map<String, String> env(String... keyValues) {
        Map<String, String> env = new HashMap<>();
        env.putAll(db.env());
        env.putAll(broker.env());
        env.put("OUTBOX_RELAY_POLL_INTERVAL", "20ms");
        env.put("OUTBOX_RELAY_HTTP_PORT", "0");
        env.put("OUTBOX_LEDGER_HTTP_PORT", "0");
        // these tests write rows of types no contract describes (test.full, bulk.loaded, ...) to reach
        // the broker's answers; the relay's default would park them CONTRACT_UNKNOWN before any of
        // those. A test of that default overrides it.
        env.put("OUTBOX_RELAY_UNREGISTERED_TYPES", "json-only");
        for (int i = 0; i < keyValues.length; i += 2) {
            env.put(keyValues[i], keyValues[i + 1]);
        }
        return env;
    }

    /** Places and captures an order; inserts both events' rows. Returns the inserted rows. */
    List<NewOutboxMessage> placeAndCapture(MessageContext context) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        Order.Transition placed = Order.place(
                UUID.randomUUID(),
                "cust-" + UUID.randomUUID(),
                context.tenantId(),
                EUR,
                List.of(new OrderLine("SKU-1", 2, Money.parse("21.25", EUR))),
                now);
        Order.Transition captured = placed.order().capture(Money.parse("42.50", EUR), UUID.randomUUID(), now);
        List<NewOutboxMessage> rows = new ArrayList<>();
        rows.add(insert(placed.events().get(0), context));
        rows.add(insert(captured.events().get(0), context));
        return rows;
    }

    NewOutboxMessage insert(DomainEvent event, MessageContext context) {
        NewOutboxMessage m = OutboxMessages.from(event, context, System.currentTimeMillis());
        injector.getInstance(OutboxMapper.class).insert(m);
        return m;
    }

    /** Inserts a row the way any SQL client may: raw values, status PENDING. */
    UUID insertRaw(String messageType, String routingKey, String exchange, String payloadJson) {
        UUID id = UUID.randomUUID();
        db.update(
                "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload) VALUES (?, 'order', ?, ?, ?, ?, ?::jsonb)",
                id,
                UUID.randomUUID().toString(),
                messageType,
                exchange,
                routingKey,
                payloadJson);
        return id;
    }

    /** Inserts {@code n} small rows in one statement: a backlog for load and shutdown tests. */
    void bulkRows(int n) {
        String payload = "{\"sku\":\"A\",\"note\":\"" + "x".repeat(200) + "\"}";
        db.update(
                "INSERT INTO message_outbox (aggregate_type, aggregate_id, message_type, exchange_name,"
                        + " routing_key, payload) SELECT 'bulk', g::text, 'bulk.loaded', 'orders.events', 'bulk.loaded',"
                        + " ?::jsonb FROM generate_series(1, ?) g",
                payload,
                n);
    }

    long count(String where) {
        return db.count("SELECT count(*) FROM message_outbox WHERE " + where);
    }

    String status(UUID id) {
        return (String) db.scalar("SELECT status FROM message_outbox WHERE id = ?", id);
    }

    long countByStatus(String status) {
        return db.count("SELECT count(*) FROM message_outbox WHERE status = ?", status);
    }

    @Override
    public void close() {
        pool.close();
    }
}
