package dev.outbox.persistence.retention;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import java.time.Duration;

/**
 * How long finished rows are kept. The consumers' dedupe records must outlive the outbox rows
 * they dedupe: an operator may replay any row still in the outbox, and its redelivery must still
 * find its {@code processed_messages} record, so {@code processedAge >= outboxAge} is enforced.
 */
public record RetentionPolicy(
        boolean enabled,
        Duration outboxAge,
        Duration processedAge,
        int batchSize,
        Duration pause,
        Duration interval,
        Duration initialDelay) {

    public RetentionPolicy {
        if (processedAge.compareTo(outboxAge) < 0) {
            throw new ConfigurationException("OUTBOX_RETENTION_PROCESSED_AGE (" + Settings.format(processedAge)
                    + ") must be at least OUTBOX_RETENTION_AGE (" + Settings.format(outboxAge) + "): a replayed"
                    + " message must still find its dedupe record");
        }
    }

    public static RetentionPolicy from(Settings s) {
        return new RetentionPolicy(
                s.bool("OUTBOX_RETENTION_ENABLED", true),
                s.duration("OUTBOX_RETENTION_AGE", Duration.ofDays(7), Duration.ofMinutes(1), Duration.ofDays(3650)),
                s.duration(
                        "OUTBOX_RETENTION_PROCESSED_AGE",
                        Duration.ofDays(14),
                        Duration.ofMinutes(1),
                        Duration.ofDays(3650)),
                s.integer("OUTBOX_RETENTION_BATCH_SIZE", 5_000, 1, 100_000),
                s.duration("OUTBOX_RETENTION_PAUSE", Duration.ofMillis(200), Duration.ZERO, Duration.ofMinutes(1)),
                s.duration(
                        "OUTBOX_RETENTION_INTERVAL", Duration.ofMinutes(10), Duration.ofSeconds(1), Duration.ofDays(1)),
                s.duration("OUTBOX_RETENTION_INITIAL_DELAY", Duration.ofMinutes(1), Duration.ZERO, Duration.ofDays(1)));
    }
}
