package dev.outbox.bench;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import dev.outbox.messaging.publish.AmqpMessageMapper;
import dev.outbox.messaging.publish.OutboundMessage;
import dev.outbox.persistence.outbox.NewOutboxMessage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A: what the broker takes with no database at all. The same messages the relay would send
 * (same mapper, same properties: persistent, {@code messageId}, contract headers), published with
 * {@code mandatory} to the orders exchange on confirm channels, asynchronously, with at most
 * {@code window} unconfirmed per channel. The ceiling is the best of the windows and channel
 * counts tried.
 */
final class BrokerCeiling {
    private BrokerCeiling() {
    }

    static List<OutboundMessage> messages(List<NewOutboxMessage> events) {
        List<OutboundMessage> out = new ArrayList<>(events.size());
        for (NewOutboxMessage m : events) {
            if (!(AmqpMessageMapper.map(Backlog.asRecord(m)) instanceof AmqpMessageMapper.Ready ready)) {
                throw new IllegalStateException("benchmark event does not map to a message: " + m.id());
            }
            out.add(ready.message());
        }
        return out;
    }

    static Throughput run(BenchEnv env, List<OutboundMessage> messages, int channels, int window) throws Exception {
        env.clean();
        List<Connection> connections = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicLong returned = new AtomicLong();
        AtomicLong nacked = new AtomicLong();
        List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        int per = (messages.size() + channels - 1) / channels;
        try {
            for (int c = 0; c < channels; c++) {
                Connection connection = env.broker.connectionFactory().newConnection("bench-broker-ceiling-" + c);
                connections.add(connection);
                List<OutboundMessage> slice = messages.subList(Math.min(messages.size(), c * per),
                        Math.min(messages.size(), (c + 1) * per));
                threads.add(new Thread(() -> {
                    try {
                        publish(connection, slice, window, returned, nacked);
                    } catch (Throwable t) {
                        errors.add(t);
                    }
                }, "bench-a-" + c));
            }
            CpuMeter.Snapshot cpu = CpuMeter.take(java.util.Set.of());
            long start = System.nanoTime();
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            var cpuPerRow = CpuMeter.perRow(cpu, CpuMeter.take(java.util.Set.of()), messages.size());
            if (!errors.isEmpty()) {
                throw new IllegalStateException("broker ceiling run failed", errors.get(0));
            }
            if (returned.get() > 0 || nacked.get() > 0) {
                throw new IllegalStateException(returned + " returned and " + nacked + " nacked: the ceiling run must"
                        + " deliver every message");
            }
            long queued = env.broker.messageCount(BenchEnv.QUEUE);
            if (queued != messages.size()) {
                throw new IllegalStateException("queue holds " + queued + " messages, expected " + messages.size());
            }
            return new Throughput("A", "broker ceiling (no database)",
                    channels + " channel(s), window " + window, messages.size(), seconds, cpuPerRow);
        } finally {
            for (Connection c : connections) {
                c.abort();
            }
        }
    }

    private static void publish(Connection connection, List<OutboundMessage> slice, int window, AtomicLong returned,
            AtomicLong nacked) throws IOException, InterruptedException {
        Channel ch = connection.createChannel();
        ch.confirmSelect();
        Semaphore slots = new Semaphore(window);
        ConcurrentSkipListSet<Long> outstanding = new ConcurrentSkipListSet<>();
        ch.addReturnListener(r -> returned.incrementAndGet());
        ch.addConfirmListener(new ConfirmListener() {
            @Override
            public void handleAck(long tag, boolean multiple) {
                settle(tag, multiple);
            }

            @Override
            public void handleNack(long tag, boolean multiple) {
                nacked.addAndGet(settle(tag, multiple));
            }

            private int settle(long tag, boolean multiple) {
                int n = 0;
                if (multiple) {
                    var head = outstanding.headSet(tag, true);
                    n = head.size();
                    head.clear();
                } else if (outstanding.remove(tag)) {
                    n = 1;
                }
                slots.release(n);
                return n;
            }
        });
        for (OutboundMessage m : slice) {
            slots.acquire();
            outstanding.add(ch.getNextPublishSeqNo());
            ch.basicPublish(m.exchange(), m.routingKey(), true, m.properties(), m.body());
        }
        if (!slots.tryAcquire(window, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(outstanding.size() + " publishes unconfirmed after 60 s");
        }
    }
}
