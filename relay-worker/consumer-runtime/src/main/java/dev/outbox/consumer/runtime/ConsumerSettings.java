package dev.outbox.consumer.runtime;

import dev.outbox.config.Settings;
import dev.outbox.messaging.Topology;
import java.time.Duration;

/**
 * How one consumer runs.
 *
 * @param name the consumer's name in {@code processed_messages} and the other state tables
 * @param queue the queue it consumes
 * @param deadLetterQueue where poison messages go
 * @param prefetch unacknowledged deliveries per channel
 * @param channels channels (each delivers in order, channels run in parallel)
 * @param maxAttempts failures of one message before it is dead-lettered
 * @param retryDelay pause before a failed message is requeued (times the attempt number)
 */
public record ConsumerSettings(
        String name,
        String queue,
        String deadLetterQueue,
        int prefetch,
        int channels,
        int maxAttempts,
        Duration retryDelay,
        Duration confirmTimeout) {

    /** Reads {@code OUTBOX_<PREFIX>_*}, e.g. {@code OUTBOX_LEDGER_PREFETCH}. */
    public static ConsumerSettings from(Settings s, String prefix, String name, String queue) {
        String p = "OUTBOX_" + prefix + "_";
        return new ConsumerSettings(
                name,
                queue,
                Topology.deadLetterQueueOf(queue),
                s.integer(p + "PREFETCH", 50, 1, 10_000),
                s.integer(p + "CHANNELS", 2, 1, 64),
                s.integer(p + "MAX_ATTEMPTS", 5, 1, 1_000),
                s.duration(p + "RETRY_DELAY", Duration.ofMillis(200), Duration.ZERO, Duration.ofMinutes(1)),
                s.duration(
                        p + "CONFIRM_TIMEOUT", Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMinutes(10)));
    }
}
