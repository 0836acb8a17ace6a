package dev.outbox.relay;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import java.time.Duration;

/**
 * The CDC relay's settings ({@code OUTBOX_RELAY_MODE=cdc}).
 *
 * @param slot the logical replication slot (one per outbox database: every relay of the fleet
 *     names the same slot; one reads it, the others stand by)
 * @param publication the publication the slot reads (created by migration V13)
 * @param tickInterval how often a tick is written into the WAL: it bounds how long a row the stream
 *     left to the retry path waits, and how quickly a stuck stream is noticed
 * @param silence a stream that delivers none of the ticks written for this long is stuck (a
 *     partition, a hung walsender): it is closed and opened again
 * @param standbyRetry how often a standby relay tries to take the slot over
 * @param maxUnrecorded rows published and not yet recorded beyond which the stream stops reading
 *     (the database is away: do not publish what cannot be marked)
 * @param walSenderTimeout asked of the server for this connection: how long the walsender waits
 *     for a silent relay before it ends the session and frees the slot for a standby
 * @param maxTransactionRows a transaction's rows are held in memory until its commit comes; a
 *     transaction with more rows than this (a bulk load) is left whole to the retry path instead,
 *     which pages through it by polling
 */
public record CdcConfig(
        String slot,
        String publication,
        Duration tickInterval,
        Duration silence,
        Duration standbyRetry,
        int maxUnrecorded,
        Duration walSenderTimeout,
        int maxTransactionRows) {

    public static final String TICK_PREFIX = "outbox-cdc-tick";

    static final Setting<String> SLOT = Setting.matching(
            "OUTBOX_RELAY_CDC_SLOT",
            "outbox_relay",
            "[a-z0-9_]{1,63}",
            "1-63 lower-case letters, digits or underscores (a replication slot name)",
            "CDC mode: the slot every relay of the fleet names (one reads, the others stand by; slot names are the"
                    + " server's, so one per outbox database)");
    static final Setting<String> PUBLICATION = Setting.matching(
            "OUTBOX_RELAY_CDC_PUBLICATION",
            "outbox_inserts",
            "[a-z_][a-z0-9_]{0,62}",
            "a plain lower-case name of at most 63 characters",
            "CDC mode: the publication the slot reads (migration V13)");
    static final Setting<Duration> TICK_INTERVAL = Setting.duration(
            "OUTBOX_RELAY_CDC_TICK_INTERVAL",
            Duration.ofSeconds(1),
            Duration.ofMillis(50),
            Duration.ofMinutes(1),
            "CDC mode: how often a tick is written into the WAL; it bounds how long a row the stream leaves to the"
                    + " retry path waits, and the lag metric's resolution");
    static final Setting<Duration> SILENCE = Setting.duration(
            "OUTBOX_RELAY_CDC_SILENCE",
            Duration.ofSeconds(15),
            Duration.ofMillis(150),
            Duration.ofMinutes(10),
            "CDC mode: a stream that delivers none of the ticks written for this long is closed and opened again"
                    + " (at least 3 ticks)");
    static final Setting<Duration> STANDBY_RETRY = Setting.duration(
            "OUTBOX_RELAY_CDC_STANDBY_RETRY",
            Duration.ofSeconds(1),
            Duration.ofMillis(50),
            Duration.ofMinutes(1),
            "CDC mode: how often a standby relay tries to take the slot");
    static final Setting<Integer> MAX_UNRECORDED = Setting.integer(
            "OUTBOX_RELAY_CDC_MAX_UNRECORDED",
            20_000,
            100,
            10_000_000,
            "CDC mode: published rows whose outcome is not yet written beyond which the stream stops reading (the"
                    + " database is away)");
    static final Setting<Duration> WAL_SENDER_TIMEOUT = Setting.duration(
            "OUTBOX_RELAY_CDC_WAL_SENDER_TIMEOUT",
            Duration.ofSeconds(10),
            Duration.ofSeconds(1),
            Duration.ofMinutes(10),
            "CDC mode: asked of the server for the relay's stream: a reader silent this long loses the slot to a"
                    + " standby");
    static final Setting<Integer> MAX_TRANSACTION_ROWS = Setting.integer(
            "OUTBOX_RELAY_CDC_MAX_TRANSACTION_ROWS",
            10_000,
            1,
            1_000_000,
            "CDC mode: a transaction's rows are held until its commit; a larger transaction (a bulk load) is left"
                    + " whole to the retry path, which pages through it");

    public static CdcConfig from(Settings settings) {
        CdcConfig c = new CdcConfig(
                settings.get(SLOT),
                settings.get(PUBLICATION),
                settings.get(TICK_INTERVAL),
                settings.get(SILENCE),
                settings.get(STANDBY_RETRY),
                settings.get(MAX_UNRECORDED),
                settings.get(WAL_SENDER_TIMEOUT),
                settings.get(MAX_TRANSACTION_ROWS));
        if (c.silence.compareTo(c.tickInterval.multipliedBy(3)) < 0) {
            throw new ConfigurationException("OUTBOX_RELAY_CDC_SILENCE must be at least three tick intervals");
        }
        return c;
    }
}
