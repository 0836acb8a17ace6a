package dev.outbox.relay;

import dev.outbox.config.ConfigurationException;
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

    public static CdcConfig from(Settings settings) {
        String slot = settings.string("OUTBOX_RELAY_CDC_SLOT", "outbox_relay");
        if (!slot.matches("[a-z0-9_]{1,63}")) {
            throw new ConfigurationException(
                    "OUTBOX_RELAY_CDC_SLOT must be 1-63 lower-case letters, digits or underscores (a replication slot"
                            + " name), got " + slot);
        }
        String publication = settings.string("OUTBOX_RELAY_CDC_PUBLICATION", "outbox_inserts");
        if (!publication.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new ConfigurationException(
                    "OUTBOX_RELAY_CDC_PUBLICATION must be a plain lower-case name, got " + publication);
        }
        CdcConfig c = new CdcConfig(
                slot,
                publication,
                settings.duration(
                        "OUTBOX_RELAY_CDC_TICK_INTERVAL",
                        Duration.ofSeconds(1),
                        Duration.ofMillis(50),
                        Duration.ofMinutes(1)),
                settings.duration(
                        "OUTBOX_RELAY_CDC_SILENCE",
                        Duration.ofSeconds(15),
                        Duration.ofMillis(150),
                        Duration.ofMinutes(10)),
                settings.duration(
                        "OUTBOX_RELAY_CDC_STANDBY_RETRY",
                        Duration.ofSeconds(1),
                        Duration.ofMillis(50),
                        Duration.ofMinutes(1)),
                settings.integer("OUTBOX_RELAY_CDC_MAX_UNRECORDED", 20_000, 100, 10_000_000),
                settings.duration(
                        "OUTBOX_RELAY_CDC_WAL_SENDER_TIMEOUT",
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(1),
                        Duration.ofMinutes(10)),
                settings.integer("OUTBOX_RELAY_CDC_MAX_TRANSACTION_ROWS", 10_000, 1, 1_000_000));
        if (c.silence.compareTo(c.tickInterval.multipliedBy(3)) < 0) {
            throw new ConfigurationException("OUTBOX_RELAY_CDC_SILENCE must be at least three tick intervals");
        }
        return c;
    }
}
