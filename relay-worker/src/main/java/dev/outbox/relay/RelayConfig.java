package dev.outbox.relay;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import dev.outbox.kernel.contract.MessageContracts;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;

/**
 * The relay's knobs, each with an {@code OUTBOX_RELAY_*} variable (see the README). The
 * defaults are the best measured configuration on the reference machine.
 *
 * @param relayId the name written to {@code locked_by}
 * @param publishers publishing channels (one thread each) in this process
 * @param batchSize most rows one claim leases
 * @param confirmWindow most unconfirmed messages per channel
 * @param pollInterval how long an idle relay waits before claiming again
 * @param confirmTimeout how long a message may wait for its confirm before {@code CONFIRM_TIMEOUT}
 * @param lease how long a claim is valid; stale leases older than this are recovered
 * @param staleCheckInterval how often stale leases are looked for
 * @param backoff delay before each attempt; its length is the attempt budget
 * @param shutdownTimeout how long a stopping relay waits for in-flight confirms
 * @param markBatchSize most outcomes written in one statement
 * @param unorderedTypes message types published without waiting for earlier versions of their
 *     aggregate (ordering policy {@code none}); every other type is strictly ordered per aggregate.
 *     A type is unordered when its contract says {@code "ordered": false}; the
 *     {@code OUTBOX_RELAY_UNORDERED_TYPES} list adds to those
 */
public record RelayConfig(
        String relayId,
        int publishers,
        int batchSize,
        int confirmWindow,
        Duration pollInterval,
        Duration confirmTimeout,
        Duration lease,
        Duration staleCheckInterval,
        List<Duration> backoff,
        Duration reconnectInitial,
        Duration reconnectMax,
        Duration shutdownTimeout,
        int markBatchSize,
        java.util.Set<String> unorderedTypes,
        String cdcSlot) {

    public static final List<Duration> DEFAULT_BACKOFF = List.of(
            Duration.ZERO,
            Duration.ofSeconds(10),
            Duration.ofMinutes(1),
            Duration.ofMinutes(5),
            Duration.ofMinutes(15));

    public RelayConfig {
        if (lease.compareTo(confirmTimeout.multipliedBy(3)) < 0) {
            throw new ConfigurationException("OUTBOX_RELAY_LEASE (" + Settings.format(lease)
                    + ") must be at least three times OUTBOX_RELAY_CONFIRM_TIMEOUT (" + Settings.format(confirmTimeout)
                    + "), or healthy relays would lose leases to stale-lock recovery");
        }
        if (backoff.isEmpty()) {
            throw new ConfigurationException("OUTBOX_RELAY_BACKOFF must list at least one delay");
        }
        backoff = List.copyOf(backoff);
        unorderedTypes = java.util.Set.copyOf(unorderedTypes);
    }

    public static RelayConfig from(Settings s) {
        return new RelayConfig(
                s.string("OUTBOX_RELAY_ID", defaultRelayId()),
                s.integer("OUTBOX_RELAY_PUBLISHERS", 1, 1, 64),
                s.integer("OUTBOX_RELAY_BATCH_SIZE", 512, 1, 10_000),
                s.integer("OUTBOX_RELAY_CONFIRM_WINDOW", 4_096, 1, 65_535),
                s.duration(
                        "OUTBOX_RELAY_POLL_INTERVAL",
                        // in CDC mode the polling claim is the retry path only
                        Duration.ofMillis(cdc(s) ? 1_000 : 100),
                        Duration.ofMillis(1),
                        Duration.ofMinutes(1)),
                s.duration(
                        "OUTBOX_RELAY_CONFIRM_TIMEOUT",
                        Duration.ofSeconds(10),
                        Duration.ofMillis(100),
                        Duration.ofMinutes(10)),
                s.duration("OUTBOX_RELAY_LEASE", Duration.ofMinutes(2), Duration.ofSeconds(1), Duration.ofHours(24)),
                s.duration(
                        "OUTBOX_RELAY_STALE_CHECK_INTERVAL",
                        Duration.ofSeconds(15),
                        Duration.ofMillis(100),
                        Duration.ofHours(1)),
                s.durations("OUTBOX_RELAY_BACKOFF", DEFAULT_BACKOFF),
                s.duration(
                        "OUTBOX_RELAY_RECONNECT_INITIAL",
                        Duration.ofMillis(500),
                        Duration.ofMillis(10),
                        Duration.ofMinutes(1)),
                // after a partition heals, the broker is tried again within this: the bound on how long
                // publishing stays stopped once the network is back
                s.duration(
                        "OUTBOX_RELAY_RECONNECT_MAX",
                        Duration.ofSeconds(10),
                        Duration.ofMillis(10),
                        Duration.ofMinutes(10)),
                s.duration(
                        "OUTBOX_RELAY_SHUTDOWN_TIMEOUT", Duration.ofSeconds(10), Duration.ZERO, Duration.ofMinutes(10)),
                s.integer("OUTBOX_RELAY_MARK_BATCH_SIZE", 1_000, 1, 50_000),
                unordered(s.list("OUTBOX_RELAY_UNORDERED_TYPES")),
                cdc(s) ? CdcConfig.from(s).slot() : null);
    }

    /**
     * {@code OUTBOX_RELAY_MODE}: {@code polling} (the default: claim due rows with {@code FOR UPDATE
     * SKIP LOCKED}) or {@code cdc} (read inserted rows from a logical replication slot; the polling
     * claim is then only the retry path).
     */
    public static boolean cdc(Settings s) {
        String mode = s.string("OUTBOX_RELAY_MODE", "polling");
        return switch (mode) {
            case "polling" -> false;
            case "cdc" -> true;
            default -> throw new ConfigurationException("OUTBOX_RELAY_MODE must be polling or cdc, got " + mode);
        };
    }

    /** In CDC mode, the slot whose stream hands rows over to the polling claim (the retry path). */
    public boolean cdcMode() {
        return cdcSlot != null;
    }

    /**
     * The contracts' unordered types plus the configured ones. The variable only adds: for types
     * without a contract here, or as an operator's override while an ordered type's head is stuck.
     */
    private static java.util.Set<String> unordered(java.util.Collection<String> configured) {
        java.util.Set<String> out =
                new java.util.TreeSet<>(MessageContracts.onClasspath().unorderedTypes());
        out.addAll(configured);
        return out;
    }

    static String defaultRelayId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        return host + "-" + ProcessHandle.current().pid();
    }

    public RelayConfig withRelayId(String id) {
        return new RelayConfig(
                id,
                publishers,
                batchSize,
                confirmWindow,
                pollInterval,
                confirmTimeout,
                lease,
                staleCheckInterval,
                backoff,
                reconnectInitial,
                reconnectMax,
                shutdownTimeout,
                markBatchSize,
                unorderedTypes,
                cdcSlot);
    }
}
