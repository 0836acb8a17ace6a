package dev.outbox.messaging.consume;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import dev.outbox.persistence.DataAccessException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs one consumer on one queue: {@code channels} channels, each with {@code prefetch}
 * unacknowledged deliveries, manual acks. Every delivery goes through the
 * {@link IdempotentProcessor}; it is acked only after the transaction committed.
 */
public final class ConsumerRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumerRunner.class);

    private final String consumerName;
    private final String queue;
    private final int prefetch;
    private final int channelCount;
    private final IdempotentProcessor processor;
    private final MessageHandler handler;
    private final List<Channel> channels = new ArrayList<>();
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    public ConsumerRunner(String consumerName, String queue, int prefetch, int channelCount,
            IdempotentProcessor processor, MessageHandler handler) {
        this.consumerName = consumerName;
        this.queue = queue;
        this.prefetch = prefetch;
        this.channelCount = channelCount;
        this.processor = processor;
        this.handler = handler;
    }

    /** Starts consuming on {@code connection}; call again with a new connection after a reconnect. */
    public synchronized void start(Connection connection) throws IOException {
        channels.clear();
        for (int i = 0; i < channelCount; i++) {
            Channel ch = connection.createChannel();
            ch.basicQos(prefetch);
            ch.basicConsume(queue, false, consumerName + "-" + i, (tag, d) -> onDelivery(ch, d), tag -> {
                LOG.warn("consumer {} was cancelled by the broker on {}", consumerName, queue);
            });
            channels.add(ch);
        }
        LOG.info("consumer {} consuming {} on {} channel(s), prefetch {}", consumerName, queue, channelCount,
                prefetch);
    }

    private void onDelivery(Channel ch, Delivery delivery) throws IOException {
        long tag = delivery.getEnvelope().getDeliveryTag();
        InboundMessage message;
        try {
            message = InboundMessage.parse(delivery);
        } catch (InboundMessage.MalformedMessageException e) {
            failures.incrementAndGet();
            LOG.error("consumer {} rejects a malformed delivery from {} without requeue: {}", consumerName, queue,
                    e.getMessage());
            ch.basicReject(tag, false);
            return;
        }
        MDC.put("message_id", message.messageId());
        MDC.put("aggregate_id", String.valueOf(message.aggregateId()));
        MDC.put("correlation_id", String.valueOf(message.correlationId()));
        try {
            IdempotentProcessor.Result result = processor.process(consumerName, message, handler);
            ch.basicAck(tag, false);
            if (result == IdempotentProcessor.Result.APPLIED) {
                applied.incrementAndGet();
                LOG.debug("applied {} v{}", message.messageType(), message.aggregateVersion());
            } else {
                duplicates.incrementAndGet();
                LOG.info("duplicate {} {} acknowledged without effect", message.messageType(), message.messageId());
            }
        } catch (NonRetryableMessageException e) {
            failures.incrementAndGet();
            LOG.error("consumer {} rejects {} {} without requeue: {}", consumerName, message.messageType(),
                    message.messageId(), e.getMessage());
            ch.basicReject(tag, false);
        } catch (DataAccessException e) {
            failures.incrementAndGet();
            LOG.warn("consumer {} could not process {} ({}); requeued", consumerName, message.messageId(),
                    e.getMessage());
            ch.basicNack(tag, false, true);
        } catch (Exception e) {
            failures.incrementAndGet();
            LOG.error("consumer {} failed on {}; requeued", consumerName, message.messageId(), e);
            ch.basicNack(tag, false, true);
        } finally {
            MDC.clear();
        }
    }

    public long applied() {
        return applied.get();
    }

    public long duplicates() {
        return duplicates.get();
    }

    public long failures() {
        return failures.get();
    }

    @Override
    public synchronized void close() {
        for (Channel ch : channels) {
            try {
                if (ch.isOpen()) {
                    ch.close();
                }
            } catch (IOException | TimeoutException | RuntimeException e) {
                LOG.debug("closing consumer channel", e);
            }
        }
        channels.clear();
    }
}
