package dev.outbox.api.orders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.DomainEvent;
import dev.outbox.MessageContext;
import dev.outbox.MessageContractViolationException;
import dev.outbox.api.orders.persistence.OrderMapper;
import dev.outbox.api.orders.persistence.OrderRepository;
import dev.outbox.domain.Money;
import dev.outbox.domain.Order;
import dev.outbox.domain.OrderLine;
import dev.outbox.domain.OrderStatus;
import dev.outbox.domain.event.OrderCancelled;
import dev.outbox.domain.event.OrderCreated;
import dev.outbox.domain.event.PaymentCaptured;
import dev.outbox.domain.event.PaymentRefunded;
import dev.outbox.jdbc.OutboxMessages;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.testkit.TestDatabase;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Currency;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.mybatis.guice.transactional.Transactional;

/**
 * The write-time contract check ({@link OutboxMessages}): an event whose payload breaks its
 * message contract is refused with {@link MessageContractViolationException} while the business
 * transaction is still open, so nothing commits: not the outbox row, not the earlier outbox rows
 * of the same transaction, not the order row.
 */
class OrderContractCheckIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final Currency EUR = Currency.getInstance("EUR");
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.MICROS);

    private static HikariDataSource pool;
    private static OrderWriter writer;

    /** What an application service does: the business row, then one outbox row per event, in one transaction. */
    public static class OrderWriter {
        private final OrderRepository orders;
        private final OutboxMapper outbox;

        @Inject
        public OrderWriter(OrderRepository orders, OutboxMapper outbox) {
            this.orders = orders;
            this.outbox = outbox;
        }

        @Transactional
        public void write(Order order, List<DomainEvent> events) {
            orders.insert(order);
            for (DomainEvent event : events) {
                outbox.insert(OutboxMessages.from(event, MessageContext.none(), System.currentTimeMillis()));
            }
        }
    }

    @BeforeAll
    static void start() {
        pool = DataSources.create(DatabaseConfig.of(DB.url(), DB.user(), DB.password(), "contract-check-it"));
        writer = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30), OrderMapper.class))
                .getInstance(OrderWriter.class);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    @BeforeEach
    void clean() {
        DB.reset();
    }

    private static Order.Transition placed() {
        return Order.place(
                UUID.randomUUID(),
                "cust-1",
                null,
                EUR,
                List.of(new OrderLine("SKU-1", 2, Money.parse("10.00", EUR))),
                NOW);
    }

    private static final List<Map<String, Object>> LINES =
            List.of(Map.of("sku", "SKU-1", "quantity", 2, "unitPrice", "10.00"));

    /**
     * Broken events of every type in the catalogue. The later types follow the order's valid
     * order.created in the same transaction, which must roll back with them.
     */
    static Stream<Arguments> brokenEvents() {
        return Stream.of(
                broken(
                        "order.created with a zero total",
                        "order.created",
                        "total: ",
                        o -> new OrderCreated(o.id(), 1, NOW, "cust-1", null, "EUR", "0.00", LINES)),
                broken(
                        "order.created without lines",
                        "order.created",
                        "lines: ",
                        o -> new OrderCreated(o.id(), 1, NOW, "cust-1", null, "EUR", "20.00", List.of())),
                broken(
                        "order.created with a blank tenant",
                        "order.created",
                        "tenantId: ",
                        o -> new OrderCreated(o.id(), 1, NOW, "cust-1", " ", "EUR", "20.00", LINES)),
                broken(
                        "payment.captured with a comma decimal",
                        "payment.captured",
                        "amount: ",
                        o -> new PaymentCaptured(o.id(), 2, NOW, UUID.randomUUID(), "20,00", "EUR")),
                broken(
                        "order.cancelled with a blank reason",
                        "order.cancelled",
                        "reason: ",
                        o -> new OrderCancelled(o.id(), 2, NOW, " ", OrderStatus.PLACED)),
                broken(
                        "payment.refunded in a lower-case currency",
                        "payment.refunded",
                        "currency: ",
                        o -> new PaymentRefunded(o.id(), 2, NOW, UUID.randomUUID(), "20.00", "eur")));
    }

    private static Arguments broken(String name, String type, String violation, Function<Order, DomainEvent> event) {
        return Arguments.of(name, type, violation, event);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenEvents")
    void aPayloadBreakingItsContractIsRefusedAndTheWholeTransactionRollsBack(
            String name, String type, String violationAt, Function<Order, DomainEvent> brokenEvent) {
        Order.Transition placed = placed();
        DomainEvent bad = brokenEvent.apply(placed.order());
        List<DomainEvent> events = bad instanceof OrderCreated
                ? List.of(bad)
                : List.of(placed.events().get(0), bad);

        MessageContractViolationException refused =
                assertThrows(MessageContractViolationException.class, () -> writer.write(placed.order(), events));

        assertEquals(type, refused.messageType());
        assertEquals(1, refused.messageVersion());
        assertEquals(1, refused.violations().size(), refused.violations().toString());
        assertTrue(
                refused.violations().get(0).startsWith(violationAt),
                refused.violations().toString());
        assertEquals(type + " v1 payload breaks its contract: " + refused.violations(), refused.getMessage());
        assertEquals(0, DB.count("SELECT count(*) FROM orders"), "the order row rolled back");
        assertEquals(0, DB.count("SELECT count(*) FROM order_lines"));
        assertEquals(0, DB.count("SELECT count(*) FROM message_outbox"), "no outbox row committed");
    }

    @Test
    void theSameWriteWithValidEventsCommitsTheOrderAndEveryOutboxRow() {
        Order.Transition placed = placed();
        Order.Transition captured = placed.order().capture(Money.parse("20.00", EUR), UUID.randomUUID(), NOW);

        writer.write(
                placed.order(),
                List.of(placed.events().get(0), captured.events().get(0)));

        assertEquals(1, DB.count("SELECT count(*) FROM orders"));
        assertEquals(
                0,
                DB.count("SELECT count(*) FROM message_outbox WHERE payload->>'orderId' <> aggregate_id"),
                "every row announces the aggregate it is ordered and deduplicated as");
        assertEquals(
                List.of("order.created", "payment.captured"),
                DB.rows("SELECT message_type FROM message_outbox ORDER BY aggregate_version").stream()
                        .map(r -> r.get("message_type"))
                        .toList());
    }
}
