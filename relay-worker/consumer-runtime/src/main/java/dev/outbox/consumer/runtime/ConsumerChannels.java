package dev.outbox.consumer.runtime;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.messaging.FailureDescriptions;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's channels on the current connection: one subscription per channel
 * ({@link ConsumerSettings#channels}), each reopened and resubscribed with backoff when it closes
 * or the broker cancels its consumer, for as long as the connection lives; a new connection
 * restarts them all. Deliveries go to the {@link DeliveryCallback}; the recovery thread catches
 * whatever its tasks throw, counts it and looks at the channels again.
 */
final class ConsumerChannels implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerChannels.class);
    private static final ExponentialBackoff RESUBSCRIBE =
            new ExponentialBackoff(Duration.ofMillis(200), Duration.ofSeconds(5));

    /** Where deliveries go; it must not throw (it is the callback boundary). */
    @FunctionalInterface
    interface DeliveryCallback {
        void deliver(Channel ch, Delivery delivery);
    }

    /** One channel and its consumer; replaced as a whole when either goes away. */
    private static final class Slot {
        final int index;
        volatile Channel channel;
        volatile boolean consuming;
        int failedOpens;

        Slot(int index) {
            this.index = index;
        }
    }

    private final ConsumerSettings settings;
    private final ConsumerStats stats;
    private final DeliveryCallback callback;
    private final Slot[] slots;
    private final ScheduledExecutorService recovery;
    private volatile Connection connection;
    private volatile boolean closed;
    /** Counted down by {@link #close}: a pause between tries ends at once when the consumer stops. */
    private final CountDownLatch closing = new CountDownLatch(1);

    ConsumerChannels(ConsumerSettings settings, ConsumerStats stats, DeliveryCallback callback) {
        this.settings = settings;
        this.stats = stats;
        this.callback = callback;
        this.slots = new Slot[settings.channels()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot(i);
        }
        this.recovery = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "consumer-recovery-" + settings.name());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts consuming on {@code connection}; called again with the new connection after a
     * reconnect. A channel that cannot subscribe now (the queue is missing, say) is retried in the
     * background: this never fails because of the queue.
     */
    synchronized void start(Connection connection) {
        if (closed) {
            return;
        }
        this.connection = connection;
        for (Slot slot : slots) {
            Channel old = slot.channel;
            slot.channel = null;
            slot.consuming = false;
            slot.failedOpens = 0;
            closeQuietly(old);
        }
        for (Slot slot : slots) {
            open(slot, connection);
        }
        LOG.info(
                "consumer {} consuming {} on {} channel(s), prefetch {}, dead letters to {}",
                settings.name(),
                settings.queue(),
                settings.channels(),
                settings.prefetch(),
                settings.deadLetterQueue());
    }

    /** Opens the slot's channel and subscribes; on failure tries again later. Holds the lock. */
    private void open(Slot slot, Connection c) {
        Channel ch = null;
        try {
            ch = c.createChannel();
            if (ch == null) {
                throw new IOException("the connection has no free channel number");
            }
            ch.basicQos(settings.prefetch());
            slot.channel = ch;
            ch.basicConsume(settings.queue(), false, settings.name() + "-" + slot.index, new SlotConsumer(slot, ch));
            slot.failedOpens = 0;
        } catch (IOException | RuntimeException e) {
            slot.channel = null;
            slot.consuming = false;
            closeQuietly(ch);
            int failures = slot.failedOpens++;
            if (c.isOpen() && !closed) {
                Duration wait = RESUBSCRIBE.delay(failures);
                if (failures == 0 || Integer.bitCount(failures) == 1) {
                    LOG.warn(
                            "consumer {} cannot subscribe channel {} to {} ({}); attempt {} failed, next in {} ms",
                            settings.name(),
                            slot.index,
                            settings.queue(),
                            DeliveryDecision.describe(e),
                            failures + 1,
                            wait.toMillis());
                }
                schedule(() -> reopen(slot, c), wait);
            }
        }
    }

    private void reopen(Slot slot, Connection c) {
        synchronized (this) {
            if (closed || c != connection || !c.isOpen() || slot.channel != null) {
                return;
            }
            stats.channelReopens.increment();
            open(slot, c);
        }
    }

    /** The slot's channel closed or its consumer was cancelled: replace both, unless superseded. */
    private void lost(Slot slot, Channel ch, String why) {
        schedule(
                () -> {
                    Connection c;
                    synchronized (this) {
                        if (closed || slot.channel != ch) {
                            return;
                        }
                        slot.channel = null;
                        slot.consuming = false;
                        c = connection;
                    }
                    // the unacked deliveries of a cancelled consumer go back to the queue with its channel
                    closeQuietly(ch);
                    if (c != null && c.isOpen()) {
                        LOG.warn(
                                "consumer {} lost channel {} on {} ({}); resubscribing",
                                settings.name(),
                                slot.index,
                                settings.queue(),
                                why);
                        reopen(slot, c);
                    }
                },
                Duration.ZERO);
    }

    /**
     * Runs a recovery task on the recovery thread. Whatever the task throws, an {@link Error}
     * included, is caught here, counted ({@link ConsumerStats#recoveryErrors}) and logged: an uncaught throw
     * would end only this task, silently, and leave its slot without a channel for good, so the
     * slot's channel is looked at again after a pause.
     */
    void schedule(Runnable task, Duration delay) {
        try {
            recovery.schedule(() -> runRecovery(task), delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("consumer {} closed: no more recovery", settings.name());
        }
    }

    private void runRecovery(Runnable task) {
        try {
            task.run();
        } catch (Throwable t) { // NOPMD: the recovery thread must outlive whatever a task throws
            stats.recoveryErrors.increment();
            LOG.error(
                    "consumer {}: channel recovery failed ({}); looking again",
                    settings.name(),
                    DeliveryDecision.describe(t),
                    t);
            if (!closed) {
                schedule(this::reopenLostSlots, RESUBSCRIBE.ceiling(3));
            }
        }
    }

    /** Opens a channel for every slot left without one (after a recovery task failed half-way). */
    private void reopenLostSlots() {
        Connection c = connection;
        if (c == null) {
            return;
        }
        for (Slot slot : slots) {
            if (slot.channel == null) {
                reopen(slot, c);
            }
        }
    }

    private final class SlotConsumer extends DefaultConsumer {
        private final Slot slot;
        private final Channel ch;

        SlotConsumer(Slot slot, Channel ch) {
            super(ch);
            this.slot = slot;
            this.ch = ch;
        }

        @Override
        public void handleConsumeOk(String consumerTag) {
            super.handleConsumeOk(consumerTag);
            if (slot.channel == ch) {
                slot.consuming = true;
            }
        }

        @Override
        public void handleCancelOk(String consumerTag) {
            slot.consuming = false;
        }

        @Override
        public void handleCancel(String consumerTag) {
            slot.consuming = false;
            LOG.warn(
                    "consumer {} was cancelled by the broker on {} (queue deleted?)",
                    settings.name(),
                    settings.queue());
            lost(slot, ch, "cancelled by the broker");
        }

        @Override
        public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
            slot.consuming = false;
            if (!closed) {
                lost(slot, ch, "channel closed: " + FailureDescriptions.describe(sig));
            }
        }

        @Override
        public void handleDelivery(
                String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
            callback.deliver(ch, new Delivery(envelope, properties, body));
        }
    }

    /** The connection the channels are on now, or null before the first. */
    Connection connection() {
        return connection;
    }

    boolean isClosed() {
        return closed;
    }

    /** Waits up to {@code d}, less if the consumer stops meanwhile. */
    void awaitClosing(Duration d) {
        try {
            closing.await(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** True while every channel is subscribed and the broker has confirmed it. */
    boolean isConsuming() {
        Connection c = connection;
        return !closed && c != null && c.isOpen() && consumingChannels() == slots.length;
    }

    /** Channels whose consumer is subscribed right now. */
    int consumingChannels() {
        return (int) Arrays.stream(slots)
                .filter(s -> s.consuming && s.channel != null && s.channel.isOpen())
                .count();
    }

    /** The channels it runs. */
    int channels() {
        return slots.length;
    }

    static void closeQuietly(Channel ch) {
        if (ch == null) {
            return;
        }
        try {
            if (ch.isOpen()) {
                ch.close();
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            LOG.debug("closing consumer channel", e);
        }
    }

    @Override
    public void close() {
        Channel[] open;
        synchronized (this) {
            closed = true;
            closing.countDown();
            recovery.shutdownNow();
            open = Arrays.stream(slots).map(s -> s.channel).toArray(Channel[]::new);
            for (Slot s : slots) {
                s.channel = null;
                s.consuming = false;
            }
        }
        for (Channel ch : open) {
            closeQuietly(ch);
        }
    }
}
