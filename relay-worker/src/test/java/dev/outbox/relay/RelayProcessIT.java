package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.Settings;
import dev.outbox.messaging.Topology;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The relay as an operating-system process: graceful SIGTERM, and surviving a database outage. */
class RelayProcessIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final OutboxFixtures fx = new OutboxFixtures();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void clean() {
        fx.db.reset();
        fx.broker.withChannel(Topology::declare);
        fx.broker.purgeIfExists(Topology.LEDGER_QUEUE);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        fx.close();
    }

    private <T extends AutoCloseable> T closeLater(T c) {
        closing.add(c);
        return c;
    }

    @Test
    void sigtermDuringALargeBatchLeavesNothingLeasedAndSendsNothingTwice() throws Exception {
        int rows = 30_000;
        fx.bulkRows(rows);
        RecordingQueue wire = closeLater(fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "bulk.#"));
        JavaProcess relay = closeLater(JavaProcess.start("relay-term", RelayMain.class.getName(),
                fx.env("OUTBOX_RELAY_ID", "relay-term", "OUTBOX_RELAY_SHUTDOWN_TIMEOUT", "5s")));
        await().atMost(WAIT).until(() -> fx.count("status = 'PUBLISHED'") > 3_000);

        assertEquals(0, relay.terminate(Duration.ofSeconds(30)), "exit code after SIGTERM:\n" + relay.output());
        assertTrue(relay.output().contains("relay exited cleanly"), relay.output());
        long published = fx.count("status = 'PUBLISHED'");
        assertTrue(published < rows, "stopped mid-backlog (published " + published + ")");
        assertEquals(0, fx.count("status = 'IN_PROGRESS'"), "nothing left leased");
        assertEquals(0, fx.count("status <> 'PUBLISHED' AND attempt_count <> 0"),
                "rows given back at shutdown did not lose an attempt");
        List<TestBroker.Received> sent = wire.await((int) published, WAIT);
        assertEquals(sent.size(), sent.stream().map(TestBroker.Received::messageId).distinct().count(),
                "that relay sent no message twice");

        // a new relay finishes the backlog; every row took exactly one counted attempt
        closeLater(RelayApp.start(new Settings(fx.env())));
        await().atMost(WAIT).until(() -> fx.count("status = 'PUBLISHED'") == rows);
        assertEquals(rows, fx.count("attempt_count = 1"));
    }

    @Test
    void aDatabaseOutageIsWaitedOutAndTheRelayCarriesOnByItself() throws Exception {
        int rows = 20_000;
        TcpProxy dbProxy = closeLater(TcpProxy.start(fx.db.host(), fx.db.port()));
        closeLater(fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "bulk.#"));
        fx.bulkRows(rows);
        JavaProcess relay = closeLater(JavaProcess.start("relay-dbdown", RelayMain.class.getName(),
                fx.env("OUTBOX_DB_URL", fx.db.urlVia(dbProxy.host(), dbProxy.port()),
                        "OUTBOX_DB_CONNECT_TIMEOUT", "1s")));
        await().atMost(WAIT).until(() -> fx.count("status = 'PUBLISHED'") > 2_000);

        dbProxy.cut(); // claims and marks now fail mid-stream; confirmed outcomes wait in memory
        relay.awaitOutput(Pattern.compile("cannot (claim from the outbox|record)"), WAIT);
        fx.bulkRows(100); // the business keeps writing meanwhile
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(relay::isAlive);

        dbProxy.restore();
        await().atMost(WAIT).until(() -> fx.count("status = 'PUBLISHED'") == rows + 100);
        assertTrue(relay.isAlive(), "the process never died");
        assertEquals(0, fx.count("status IN ('IN_PROGRESS', 'PARKED')"));
        relay.awaitOutput(Pattern.compile("database reachable again"), WAIT);
        assertEquals(0, relay.terminate(Duration.ofSeconds(30)));
    }
}
