package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import dev.outbox.config.Settings;
import dev.outbox.messaging.Topology;
import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.junit.TestResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The relay as an operating-system process: graceful SIGTERM, and surviving a database outage. */
class RelayProcessIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset().topology().purgeLedger();

    private final TestResources closing = fx.resources();

    private <T extends AutoCloseable> T closeLater(T c) {
        closing.add(c);
        return c;
    }

    @Test
    void sigtermDuringALargeBatchLeavesNothingLeasedAndSendsNothingTwice() throws Exception {
        int rows = 30_000;
        fx.bulkRows(rows);
        RecordingQueue wire = closeLater(fx.broker.bindQueue(Topology.ORDERS_EXCHANGE, "bulk.#"));
        JavaProcess relay = closeLater(JavaProcess.start(
                "relay-term",
                RelayMain.class.getName(),
                fx.env("OUTBOX_RELAY_ID", "relay-term", "OUTBOX_RELAY_SHUTDOWN_TIMEOUT", "5s")));
        await().atMost(WAIT).until(() -> fx.count("status = 'PUBLISHED'") > 3_000);

        assertEquals(0, relay.terminate(Duration.ofSeconds(30)), "exit code after SIGTERM:\n" + relay.output());
        String out = relay.output();
        assertTrue(out.contains("relay stopped cleanly"), out);
        // the ready line the benchmark and the chaos soak wait for
        assertTrue(
                Pattern.compile("relay relay-term running \\(pid \\d+\\)")
                        .matcher(out)
                        .find(),
                out);
        Matcher stopped = Pattern.compile("relay relay-term stopped: claimed=(\\d+) published=(\\d+) released=(\\d+)")
                .matcher(out);
        assertTrue(stopped.find(), out);
        long claimed = Long.parseLong(stopped.group(1));
        long confirmed = Long.parseLong(stopped.group(2));
        long released = Long.parseLong(stopped.group(3));
        long published = fx.count("status = 'PUBLISHED'");
        assertTrue(published < rows, "stopped mid-backlog (published " + published + ")");
        // draining, not abandoning: every confirm it saw is recorded, every other row it held is given back
        assertEquals(confirmed, published, "each confirm the relay saw before it exited is PUBLISHED");
        assertEquals(claimed, confirmed + released, "each row it claimed was published or given back");
        assertEquals(0, fx.count("status = 'IN_PROGRESS'"), "nothing left leased");
        assertEquals(
                rows - published,
                fx.count("status = 'PENDING' AND attempt_count = 0 AND locked_by IS NULL"),
                "the rows not published, given back or never claimed, are due again with no attempt counted");

        // what reached the broker is exactly what is PUBLISHED: in flight at SIGTERM meant waited for, not
        // abandoned. A marker sent after the relay's connection closed comes last from the queue.
        String marker = UUID.randomUUID().toString();
        fx.broker.withChannel(ch -> ch.basicPublish(
                Topology.ORDERS_EXCHANGE,
                "bulk.marker",
                false,
                new AMQP.BasicProperties.Builder().messageId(marker).build(),
                new byte[0]));
        List<TestBroker.Received> sent = new ArrayList<>(wire.await((int) published + 1, WAIT));
        while (sent.stream().noneMatch(r -> marker.equals(r.messageId()))) {
            sent.addAll(wire.await(1, WAIT));
        }
        List<String> sentIds = sent.stream()
                .map(TestBroker.Received::messageId)
                .filter(id -> !marker.equals(id))
                .toList();
        assertEquals(sentIds.size(), sentIds.stream().distinct().count(), "that relay sent no message twice");
        Set<String> publishedIds =
                fx.db.rows("SELECT id::text AS id FROM message_outbox WHERE status = 'PUBLISHED'").stream()
                        .map(r -> (String) r.get("id"))
                        .collect(Collectors.toSet());
        List<String> sentNotPublished =
                sentIds.stream().filter(id -> !publishedIds.contains(id)).toList();
        assertEquals(
                0,
                sentNotPublished.size(),
                "in flight at SIGTERM and abandoned instead of drained, e.g. "
                        + sentNotPublished.stream().limit(3).toList());
        assertEquals(publishedIds.size(), sentIds.size(), "every PUBLISHED row is on the broker");

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
        JavaProcess relay = closeLater(JavaProcess.start(
                "relay-dbdown",
                RelayMain.class.getName(),
                fx.env(
                        "OUTBOX_DB_URL",
                        fx.db.urlVia(dbProxy.host(), dbProxy.port()),
                        "OUTBOX_DB_CONNECT_TIMEOUT",
                        "1s")));
        await().atMost(WAIT).until(() -> fx.count("status = 'PUBLISHED'") > 2_000);

        dbProxy.cut(); // claims and marks now fail mid-stream; confirmed outcomes wait in memory
        relay.awaitOutput(Pattern.compile("cannot (claim from the outbox|record)"), WAIT);
        fx.bulkRows(100); // the business keeps writing meanwhile
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(relay::isAlive);

        dbProxy.restore();
        try {
            await().atMost(WAIT).until(() -> fx.count("status = 'PUBLISHED'") == rows + 100);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "not every row published after the outage: "
                            + fx.db.rows("SELECT status,"
                                    + " last_error_code, locked_by, count(*) FROM message_outbox GROUP BY 1, 2, 3")
                            + "\nrelay output:\n" + relay.output(),
                    e);
        }
        assertTrue(relay.isAlive(), "the process never died");
        assertEquals(0, fx.count("status IN ('IN_PROGRESS', 'PARKED')"));
        relay.awaitOutput(Pattern.compile("database reachable again"), WAIT);
        assertEquals(0, relay.terminate(Duration.ofSeconds(30)));
    }
}
