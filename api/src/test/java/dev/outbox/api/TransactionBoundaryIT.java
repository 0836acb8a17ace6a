package dev.outbox.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Provides;
import com.google.inject.util.Modules;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.MessageContext;
import dev.outbox.api.orders.OrderService;
import dev.outbox.api.orders.PlaceOrderRequest;
import dev.outbox.api.orders.persistence.OrderMapper;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.testkit.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.ibatis.session.SqlSessionManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The business row and the outbox row share one transaction: a failure injected after both
 * inserts ran rolls both back (seed 001 section 6, "Correct" vs "Incorrect").
 */
class TransactionBoundaryIT {
    private static final TestDatabase DB = TestDatabase.get();
    private HikariDataSource pool;

    @BeforeEach
    void setUp() {
        DB.reset();
        pool = DataSources.create(DatabaseConfig.of(DB.url(), DB.user(), DB.password(), "tx-boundary-it"));
    }

    @AfterEach
    void tearDown() {
        pool.close();
    }

    /** An OutboxMapper whose insert really writes the row, then fails: the worst moment to fail. */
    static final class FailAfterInsert extends AbstractModule {
        @Provides
        OutboxMapper failingOutbox(SqlSessionManager sessions) {
            OutboxMapper real = sessions.getMapper(OutboxMapper.class);
            return (OutboxMapper) Proxy.newProxyInstance(
                    OutboxMapper.class.getClassLoader(), new Class<?>[] {OutboxMapper.class}, (proxy, method, args) -> {
                        Object result;
                        try {
                            result = method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                        if (method.getName().equals("insert")) {
                            throw new IllegalStateException(
                                    "injected failure after the outbox insert of " + ((NewOutboxMessage) args[0]).id());
                        }
                        return result;
                    });
        }
    }

    private Injector injector(boolean fail) {
        PersistenceModule persistence = new PersistenceModule(pool, Duration.ofSeconds(30), OrderMapper.class);
        return Guice.createInjector(
                fail ? Modules.override(persistence).with(new FailAfterInsert()) : persistence,
                new ApiModule(Clock.systemUTC()));
    }

    private static PlaceOrderRequest order() {
        return new PlaceOrderRequest("cust-1", "EUR", List.of(new PlaceOrderRequest.Line("SKU-1", 1, "9.99")));
    }

    @Test
    void aFailureAfterBothWritesRollsBackTheOrderAndTheOutboxRow() {
        OrderService service = injector(true).getInstance(OrderService.class);
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> service.place(order(), MessageContext.none()));
        assertEquals(true, e.getMessage().startsWith("injected failure"));
        assertEquals(0, DB.count("SELECT count(*) FROM orders"));
        assertEquals(0, DB.count("SELECT count(*) FROM order_lines"));
        assertEquals(0, DB.count("SELECT count(*) FROM message_outbox"));
    }

    @Test
    void withoutTheFailureBothRowsCommit() {
        OrderService service = injector(false).getInstance(OrderService.class);
        service.place(order(), MessageContext.none());
        assertEquals(1, DB.count("SELECT count(*) FROM orders"));
        assertEquals(1, DB.count("SELECT count(*) FROM message_outbox"));
    }
}
