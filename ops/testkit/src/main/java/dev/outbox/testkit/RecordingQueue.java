package dev.outbox.testkit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** An exclusive, server-named queue bound to an exchange, recording what arrives. */
public final class RecordingQueue implements AutoCloseable {
    private final Channel channel;
    private final String name;
    private final LinkedBlockingQueue<TestBroker.Received> received = new LinkedBlockingQueue<>();

    private RecordingQueue(Channel channel, String name) {
        this.channel = channel;
        this.name = name;
    }

    static RecordingQueue open(Connection connection, String exchange, String... routingKeys) {
        try {
            Channel ch = connection.createChannel();
            String queue = ch.queueDeclare("", false, true, true, null).getQueue();
            for (String key : routingKeys) {
                ch.queueBind(queue, exchange, key);
            }
            RecordingQueue q = new RecordingQueue(ch, queue);
            ch.basicConsume(
                    queue, true, (tag, delivery) -> q.received.add(new TestBroker.Received(delivery)), tag -> {});
            return q;
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind a test queue to " + exchange, e);
        }
    }

    public String name() {
        return name;
    }

    /** Waits until {@code n} messages arrived (more may arrive later) and returns all so far. */
    public List<TestBroker.Received> await(int n, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<TestBroker.Received> out = new ArrayList<>();
        while (out.size() < n) {
            long left = deadline - System.nanoTime();
            TestBroker.Received r = received.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (r == null) {
                throw new AssertionError(
                        "expected " + n + " messages on " + name + " within " + timeout + ", got " + out.size());
            }
            out.add(r);
        }
        received.drainTo(out);
        return out;
    }

    /** Everything received so far, without waiting. */
    public List<TestBroker.Received> drain() {
        List<TestBroker.Received> out = new ArrayList<>();
        received.drainTo(out);
        return out;
    }

    @Override
    public void close() {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }
}
