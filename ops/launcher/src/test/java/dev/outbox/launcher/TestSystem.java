package dev.outbox.launcher;

import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.util.HashMap;
import java.util.Map;

/** The settings of the whole system in one JVM on the tests' database and broker, on free local ports. */
final class TestSystem {
    private TestSystem() {}

    /** Loopback, ports the OS picks, a fast relay poll; {@code extra} adds or overrides. */
    static Map<String, String> env(Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(TestDatabase.get().env());
        env.putAll(TestBroker.get().env());
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        env.put("OUTBOX_RELAY_POLL_INTERVAL", "20ms");
        env.put("OUTBOX_RELAY_HTTP_PORT", "0");
        env.put("OUTBOX_LEDGER_HTTP_PORT", "0");
        env.putAll(extra);
        return env;
    }
}
