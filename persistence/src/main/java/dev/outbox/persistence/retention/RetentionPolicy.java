package dev.outbox.persistence.retention;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Setting;
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

    public static final Setting<Boolean> ENABLED = Setting.flag(
            "OUTBOX_RETENTION_ENABLED",
            true,
            "run retention in the relay (and in a consumer whose registration names tables)");
    public static final Setting<Duration> AGE = Setting.duration(
            "OUTBOX_RETENTION_AGE",
            Duration.ofDays(7),
            Duration.ofMinutes(1),
            Duration.ofDays(3650),
            "delete `PUBLISHED`/`CANCELLED` rows older than this (7 days by default)");
    public static final Setting<Duration> PROCESSED_AGE = Setting.duration(
            "OUTBOX_RETENTION_PROCESSED_AGE",
            Duration.ofDays(14),
            Duration.ofMinutes(1),
            Duration.ofDays(3650),
            "delete dedupe records, failure counts, done side effects (and a consumer's own tables, e.g. the"
                    + " ledger journal) older than this; at least `OUTBOX_RETENTION_AGE`");
    public static final Setting<Integer> BATCH_SIZE =
            Setting.integer("OUTBOX_RETENTION_BATCH_SIZE", 5_000, 1, 100_000, "rows per delete");
    public static final Setting<Duration> PAUSE = Setting.duration(
            "OUTBOX_RETENTION_PAUSE",
            Duration.ofMillis(200),
            Duration.ZERO,
            Duration.ofMinutes(1),
            "pause between batches");
    public static final Setting<Duration> INTERVAL = Setting.duration(
            "OUTBOX_RETENTION_INTERVAL",
            Duration.ofMinutes(10),
            Duration.ofSeconds(1),
            Duration.ofDays(1),
            "how often retention runs");
    public static final Setting<Duration> INITIAL_DELAY = Setting.duration(
            "OUTBOX_RETENTION_INITIAL_DELAY",
            Duration.ofMinutes(1),
            Duration.ZERO,
            Duration.ofDays(1),
            "when the first run starts after the process does");

    public static RetentionPolicy from(Settings s) {
        return new RetentionPolicy(
                s.get(ENABLED),
                s.get(AGE),
                s.get(PROCESSED_AGE),
                s.get(BATCH_SIZE),
                s.get(PAUSE),
                s.get(INTERVAL),
                s.get(INITIAL_DELAY));
    }
}
