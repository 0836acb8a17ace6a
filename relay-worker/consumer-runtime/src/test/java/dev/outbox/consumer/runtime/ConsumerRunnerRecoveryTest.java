package dev.outbox.consumer.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The runner's channel supervision with a fake connection: a consumer channel that closes, or a
 * consumer the broker cancels, is replaced while the connection lives.
 * The broker-backed version is {@code LedgerConsumerResilienceIT}.
 */
class ConsumerRunnerRecoveryTest {
    /** How many subscriptions fail before one succeeds (the queue is missing meanwhile). */
    private final AtomicInteger failSubscriptions = new AtomicInteger();

    /** How many channel opens throw an {@link Error} before one succeeds. */
    private final AtomicInteger errorsOnCreate = new AtomicInteger();

    private final List<FakeChannel> channels = new CopyOnWriteArrayList<>();
    private final ConsumerRunner runner = ConsumerRunner.atMostOnce(
            new ConsumerSettings("fake", "q", "q.dlq", 1, 2, 3, Duration.ZERO, Duration.ofSeconds(1)),
            null,
            "none",
            m -> {},
            null);

    /** One fake channel: what the runner subscribed with, and whether it is open. */
    private static final class FakeChannel {
        final AtomicBoolean open = new AtomicBoolean(true);
        volatile Consumer consumer;
        volatile String tag;
        Channel proxy;
    }

    @AfterEach
    void close() {
        runner.close();
    }

    private Connection connection() {
        return (Connection) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {Connection.class},
                (p, method, args) -> switch (method.getName()) {
                    case "isOpen" -> true;
                    case "createChannel" -> {
                        if (errorsOnCreate.getAndDecrement() > 0) {
                            throw new StackOverflowError("thrown by the fake connection (test)");
                        }
                        yield channel();
                    }
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    default -> null;
                });
    }

    private Channel channel() {
        FakeChannel fake = new FakeChannel();
        fake.proxy = (Channel) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {Channel.class},
                (p, method, args) -> switch (method.getName()) {
                    case "isOpen" -> fake.open.get();
                    case "close" -> {
                        fake.open.set(false);
                        yield null;
                    }
                    case "basicConsume" -> {
                        if (failSubscriptions.getAndDecrement() > 0) {
                            fake.open.set(false);
                            throw new IOException("NOT_FOUND - no queue 'q'");
                        }
                        fake.tag = (String) args[2];
                        fake.consumer = (Consumer) args[3];
                        fake.consumer.handleConsumeOk(fake.tag);
                        yield fake.tag;
                    }
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    default -> null;
                });
        channels.add(fake);
        return fake.proxy;
    }

    @Test
    void aChannelClosedUnderTheConsumerIsReopenedAndConsumesAgain() {
        runner.start(connection());
        assertTrue(runner.isConsuming());
        FakeChannel first = channels.get(0);

        first.open.set(false);
        first.consumer.handleShutdownSignal(first.tag, new ShutdownSignalException(false, false, null, first.proxy));

        await().atMost(Duration.ofSeconds(5)).until(runner::isConsuming);
        assertEquals(3, channels.size(), "one new channel");
        assertEquals(1, runner.stats().channelReopens());
    }

    @Test
    void aConsumerCancelledByTheBrokerIsResubscribedOnceTheQueueIsBack() throws Exception {
        runner.start(connection());
        FakeChannel first = channels.get(0);
        failSubscriptions.set(3); // the queue was deleted: three attempts find nothing

        first.consumer.handleCancel(first.tag);

        await().atMost(Duration.ofSeconds(10)).until(runner::isConsuming);
        assertFalse(first.open.get(), "the cancelled consumer's channel was closed (its unacked go back)");
        assertEquals(2 + 4, channels.size(), "three failed attempts, then one that subscribes");
        assertEquals(4, runner.stats().channelReopens());
        assertEquals(2, runner.consumingChannels());
    }

    /**
     * Issue 21: the recovery timer caught only RuntimeException, so an Error thrown while a lost
     * channel was reopened ended that task silently and the slot stayed without a channel for good.
     */
    @Test
    void anErrorThrownWhileReopeningAChannelIsCountedAndTheChannelIsReopenedLater() {
        runner.start(connection());
        FakeChannel first = channels.get(0);
        errorsOnCreate.set(1);

        first.open.set(false);
        first.consumer.handleShutdownSignal(first.tag, new ShutdownSignalException(false, false, null, first.proxy));

        await().atMost(Duration.ofSeconds(10)).until(runner::isConsuming);
        assertEquals(1, runner.stats().recoveryErrors(), "the Error was caught and counted");
        assertEquals(2, runner.consumingChannels());
        assertEquals(3, channels.size(), "one channel opened after the failed attempt");
    }
}
