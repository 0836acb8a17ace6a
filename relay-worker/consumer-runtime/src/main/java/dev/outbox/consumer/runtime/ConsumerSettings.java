package dev.outbox.consumer.runtime;

import dev.outbox.config.EndpointConfig;
import dev.outbox.config.Setting;
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

    static final Setting<Integer> PREFETCH = Setting.integer(
            "OUTBOX_<CONSUMER>_PREFETCH",
            50,
            1,
            10_000,
            "a consumer's unacknowledged deliveries per channel (`<CONSUMER>` is its settings prefix: `LEDGER`,"
                    + " `SHIPMENTS`)");
    static final Setting<Integer> CHANNELS = Setting.integer(
            "OUTBOX_<CONSUMER>_CHANNELS",
            2,
            1,
            64,
            "a consumer's channels (each delivers in order, channels run in parallel)");
    static final Setting<Integer> MAX_ATTEMPTS = Setting.integer(
            "OUTBOX_<CONSUMER>_MAX_ATTEMPTS",
            5,
            1,
            1_000,
            "failures of one message before it is dead-lettered (below a quorum queue's delivery limit)");
    static final Setting<Duration> RETRY_DELAY = Setting.duration(
            "OUTBOX_<CONSUMER>_RETRY_DELAY",
            Duration.ofMillis(200),
            Duration.ZERO,
            Duration.ofMinutes(1),
            "pause before a failed message is requeued (× the attempt number)");
    static final Setting<Duration> CONFIRM_TIMEOUT = Setting.duration(
            "OUTBOX_<CONSUMER>_CONFIRM_TIMEOUT",
            Duration.ofSeconds(10),
            Duration.ofMillis(100),
            Duration.ofMinutes(10),
            "how long a dead-letter forward waits for the broker's confirm");
    static final Setting<Integer> HTTP_PORT = Setting.integer(
                    "OUTBOX_<CONSUMER>_HTTP_PORT",
                    0,
                    EndpointConfig.OFF,
                    65_535,
                    "the consumer's `/metrics` and `/health` (`-1` turns it off, `0` any free port)")
            .defaultShownAs("its registration's (ledger `8082`, shipments `8083`)");
    static final Setting<String> HTTP_HOST = Setting.text(
            "OUTBOX_<CONSUMER>_HTTP_HOST", "0.0.0.0", "the address of the consumer's `/metrics` and `/health`");

    /** Reads {@code OUTBOX_<PREFIX>_*}, e.g. {@code OUTBOX_LEDGER_PREFETCH}. */
    public static ConsumerSettings from(Settings s, String prefix, String name, String queue) {
        return new ConsumerSettings(
                name,
                queue,
                Topology.deadLetterQueueOf(queue),
                s.get(PREFETCH.forConsumer(prefix)),
                s.get(CHANNELS.forConsumer(prefix)),
                s.get(MAX_ATTEMPTS.forConsumer(prefix)),
                s.get(RETRY_DELAY.forConsumer(prefix)),
                s.get(CONFIRM_TIMEOUT.forConsumer(prefix)));
    }

    /** Where the consumer serves {@code /metrics} and {@code /health}; its registration names the default port. */
    static EndpointConfig endpoint(Settings s, String prefix, int defaultPort) {
        return EndpointConfig.from(s, HTTP_HOST.forConsumer(prefix), HTTP_PORT.forConsumer(prefix), defaultPort);
    }
}
