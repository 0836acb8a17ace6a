package dev.outbox.deploy;

import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.util.HashMap;
import java.util.Map;

/** The API, the relay and the ledger in this JVM on the tests' database and broker, on ports the OS picks. */
final class TestProcesses {
    private TestProcesses() {}

    /** Empties the outbox and the ledger's queue; the processes' environment, {@code extra} added. */
    static Map<String, String> freshEnv(Map<String, String> extra) {
        TestDatabase.get().reset();
        TestBroker.get().declareTopicExchange(Topology.ORDERS_EXCHANGE);
        TestBroker.get().purgeIfExists(LedgerConsumer.QUEUE);
        Map<String, String> env = new HashMap<>(TestDatabase.get().env());
        env.putAll(TestBroker.get().env());
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_RELAY_HTTP_PORT", "0");
        env.put("OUTBOX_LEDGER_HTTP_PORT", "0");
        env.putAll(extra);
        return env;
    }
}
