package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestBroker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
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

    /**
     * Two nodes (two proxies in front of the broker): the session connects to one, that one dies,
     * and the session goes to the other, running its connected callback (where the topology is
     * declared) again on the new connection.
     */
    @Test
    void whenItsNodeDiesTheSessionConnectsToAnotherListedNodeAndDeclaresAgain() throws Exception {
        TestBroker broker = TestBroker.get();
        List<Integer> connectedPorts = new CopyOnWriteArrayList<>();
        try (TcpProxy a = TcpProxy.start(broker.host(), broker.port());
                TcpProxy b = TcpProxy.start(broker.host(), broker.port())) {
            String uri = broker.uriVia(a.host(), a.port())
                    .replace(a.host() + ":" + a.port(), a.host() + ":" + a.port() + "," + b.host() + ":" + b.port());
            try (BrokerSession session = new BrokerSession(
                    BrokerConfig.of(uri, "broker-session-failover-it"),
                    new ExponentialBackoff(Duration.ofMillis(50), Duration.ofMillis(200)),
                    c -> connectedPorts.add(c.getPort()))) {
                session.start();
                assertTrue(session.awaitAvailable(Duration.ofSeconds(10)), "connected: " + session.lastError());
                int first = session.connection().getPort();
                TcpProxy dying = first == a.port() ? a : b;
                TcpProxy other = dying == a ? b : a;

                dying.cut();

                Awaitility.await()
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> session.connection() != null
                                && session.connection().getPort() == other.port());
                assertEquals(List.of(first, other.port()), connectedPorts, "the callback ran once per connection");
                assertEquals(1, other.liveConnections());
            }
        }
    }

    /** Each attempt tries the nodes in a new random order: processes spread over the cluster. */
    @Test
    void connectionsSpreadOverTheListedNodes() throws Exception {
        TestBroker broker = TestBroker.get();
        try (TcpProxy a = TcpProxy.start(broker.host(), broker.port());
                TcpProxy b = TcpProxy.start(broker.host(), broker.port())) {
            String uri = broker.uriVia(a.host(), a.port())
                    .replace(a.host() + ":" + a.port(), a.host() + ":" + a.port() + "," + b.host() + ":" + b.port());
            BrokerConfig config = BrokerConfig.of(uri, "broker-spread-it");
            for (int i = 0; i < 20; i++) {
                AmqpConnections.open(config).close();
            }
            // 20 fair coin flips all landing on one side: one chance in 2^19
            assertTrue(a.accepted() > 0 && b.accepted() > 0, "a=" + a.accepted() + " b=" + b.accepted());
            assertEquals(20, a.accepted() + b.accepted());
        }
    }
}
