package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.testkit.TestBroker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The session's reconnect thread is the only way back to the broker: nothing may end it. */
class BrokerSessionIT {

    @Test
    void anErrorFromTheConnectedCallbackIsRetriedLikeAnyFailure() throws Exception {
        TestBroker broker = TestBroker.get();
        AtomicInteger calls = new AtomicInteger();
        try (BrokerSession session = new BrokerSession(
                BrokerConfig.of(broker.uri(), "broker-session-it"),
                new ExponentialBackoff(Duration.ofMillis(50), Duration.ofMillis(200)),
                c -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new AssertionError("injected: the first onConnected throws an Error");
                    }
                })) {
            session.start();
            assertTrue(
                    session.awaitAvailable(Duration.ofSeconds(10)),
                    "connected after the Error: " + session.lastError());
            assertEquals(2, calls.get());
        }
    }
}
