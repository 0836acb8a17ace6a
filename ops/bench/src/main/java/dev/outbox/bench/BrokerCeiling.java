package dev.outbox.bench;

import com.rabbitmq.client.Connection;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.OutboundMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A: what the broker takes with no database at all. The same messages the relay would send
 * (same mapper, same properties: persistent, {@code messageId}, contract headers), published with
 * {@code mandatory} to the orders exchange through the relay's own {@link ConfirmPublisher},
 * asynchronously, with at most {@code window} unconfirmed per channel. The ceiling is the best of the windows and channel
 * counts tried.
 */
final class BrokerCeiling {
    private BrokerCeiling() {}

    static List<OutboundMessage> messages(List<NewOutboxMessage> events) {
        List<OutboundMessage> out = new ArrayList<>(events.size());
        for (NewOutboxMessage m : events) {
            if (!(AmqpMessageMapper.map(m.asPendingRecord()) instanceof AmqpMessageMapper.Ready ready)) {
                throw new IllegalStateException("benchmark event does not map to a message: " + m.id());
            }
            out.add(ready.message());
        }
        return out;
    }

    static Throughput run(BenchEnv env, List<OutboundMessage> messages, int channels, int window) throws Exception {
        env.clean();
        List<Connection> connections = new ArrayList<>();
        int per = (messages.size() + channels - 1) / channels;
        try {
            for (int c = 0; c < channels; c++) {
                connections.add(env.broker.connectionFactory().newConnection("bench-broker-ceiling-" + c));
            }
            CpuMeter.Snapshot cpu = CpuMeter.take(java.util.Set.of());
            double seconds = Parallel.run(
                    "bench-a",
                    channels,
                    c -> publish(
                            connections.get(c),
                            messages.subList(
                                    Math.min(messages.size(), c * per), Math.min(messages.size(), (c + 1) * per)),
                            window));
            var cpuPerRow = CpuMeter.perRow(cpu, CpuMeter.take(java.util.Set.of()), messages.size());
            long queued = env.broker.messageCount(BenchEnv.QUEUE);
            if (queued != messages.size()) {
                throw new IllegalStateException("queue holds " + queued + " messages, expected " + messages.size());
            }
            return new Throughput(
                    "A",
                    "broker ceiling (no database)",
                    channels + " channel(s), window " + window,
                    messages.size(),
                    seconds,
                    cpuPerRow);
        } finally {
            for (Connection c : connections) {
                c.abort();
            }
        }
    }

    private static void publish(Connection connection, List<OutboundMessage> slice, int window)
            throws IOException, InterruptedException {
        Outcomes outcomes = new Outcomes();
        ConfirmPublisher<String> p =
                ConfirmPublisher.open(connection, window, BrokerConfig.DEFAULT_MAX_MESSAGE_BYTES, outcomes);
        for (OutboundMessage m : slice) {
            if (!p.acquireSlot(Duration.ofSeconds(60))) {
                throw new IllegalStateException("confirm window stayed full for 60 s");
            }
            p.publish(m, m.messageId());
        }
        if (!p.awaitSettled(Duration.ofSeconds(60))) {
            throw new IllegalStateException(p.inFlightCount() + " publishes unconfirmed after 60 s");
        }
        outcomes.requireAllConfirmed(slice.size());
        p.close();
    }
}
