package dev.outbox.relay;

import dev.outbox.ProcessIds;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.EndpointConfig;
import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import dev.outbox.persistence.LeaseConfig;
import java.time.Duration;
import java.util.List;
import java.util.Set;

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
 * @param contracts the contracts rows are checked against and the types published without waiting
 *     for earlier versions of their aggregate (see {@link #unorderedTypes}): the classpath's and
 *     {@code OUTBOX_RELAY_UNORDERED_TYPES} from the settings, the registry's too once the relay's
 *     {@link RegistryWatch} runs; the only part of this record that changes at run time
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
        RelayContracts contracts,
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
        java.util.Objects.requireNonNull(contracts, "contracts");
    }

    /**
     * Message types published without waiting for earlier versions of their aggregate (ordering
     * policy {@code none}); every other type is strictly ordered per aggregate. A type is unordered
     * when its contract (on the classpath or registered) says {@code "ordered": false}; the {@code
     * OUTBOX_RELAY_UNORDERED_TYPES} list adds to those. Read at each claim: a registration changes it.
     */
    public java.util.Set<String> unorderedTypes() {
        return contracts.unorderedTypes();
    }

    public static final Setting<String> RELAY_ID = Setting.text(
                    "OUTBOX_RELAY_ID",
                    null,
                    "this relay's name in `locked_by`; two live processes must never share one")
            .defaultShownAs("host name + pid");
    public static final Setting<String> MODE = Setting.oneOf(
            "OUTBOX_RELAY_MODE",
            "polling",
            List.of("polling", "cdc"),
            "`cdc` reads the inserts from a logical replication slot instead of polling for them ([CDC"
                    + " mode](../../relay-worker/README.md#cdc-mode)); the polling claim then runs as the retry path only");
    public static final Setting<Integer> PUBLISHERS = Setting.integer(
            "OUTBOX_RELAY_PUBLISHERS", 1, 1, 64, "publishing channels (one thread each) per relay process");
    public static final Setting<Integer> BATCH_SIZE = Setting.integer(
            "OUTBOX_RELAY_BATCH_SIZE", 512, 1, 10_000, "most rows one claim leases (measured best, see Performance)");
    public static final Setting<Integer> CONFIRM_WINDOW = Setting.integer(
            "OUTBOX_RELAY_CONFIRM_WINDOW",
            4_096,
            1,
            65_535,
            "most unconfirmed messages per channel (measured best: a wide window lets the broker confirm many at"
                    + " once). Keep it one the broker can confirm within `OUTBOX_RELAY_CONFIRM_TIMEOUT`: a full"
                    + " window that waits longer looks like a hung connection, which the relay recycles, failing the"
                    + " window and spending its rows' attempts (the chaos soak, with a 5 s timeout on 2 busy cores,"
                    + " runs 256: `ops/chaos/REGRESSIONS.md`)");
    public static final Setting<Duration> POLL_INTERVAL = Setting.duration(
                    "OUTBOX_RELAY_POLL_INTERVAL",
                    null,
                    Duration.ofMillis(1),
                    Duration.ofMinutes(1),
                    "idle wait between claims (a notification cuts it short)")
            .defaultShownAs("`100ms`; `1s` in CDC mode, where the claim is the retry path only");
    public static final Setting<Boolean> LISTEN = Setting.flag(
                    "OUTBOX_RELAY_LISTEN",
                    true,
                    "`LISTEN outbox_pending` on a connection of its own, register as waiting when idle, and wake at"
                            + " each commit")
            .defaultShownAs("`true`; `false` in CDC mode (a notification per insert would wake the retry path for"
                    + " rows the stream publishes anyway)");
    public static final Setting<Duration> CONFIRM_TIMEOUT = Setting.duration(
            "OUTBOX_RELAY_CONFIRM_TIMEOUT",
            Duration.ofSeconds(10),
            Duration.ofMillis(100),
            Duration.ofMinutes(10),
            "no confirm by then: `CONFIRM_TIMEOUT`, connection recycled");
    public static final Setting<Duration> STALE_CHECK_INTERVAL = Setting.duration(
            "OUTBOX_RELAY_STALE_CHECK_INTERVAL",
            Duration.ofSeconds(15),
            Duration.ofMillis(100),
            Duration.ofHours(1),
            "how often expired leases are recovered");
    public static final Setting<List<Duration>> BACKOFF = Setting.durations(
            "OUTBOX_RELAY_BACKOFF", DEFAULT_BACKOFF, "delay before each attempt; its length is the attempt budget");
    public static final Setting<Duration> RECONNECT_INITIAL = Setting.duration(
            "OUTBOX_RELAY_RECONNECT_INITIAL",
            Duration.ofMillis(500),
            Duration.ofMillis(10),
            Duration.ofMinutes(1),
            "first broker reconnect delay (capped exponential, jittered)");
    public static final Setting<Duration> RECONNECT_MAX = Setting.duration(
            "OUTBOX_RELAY_RECONNECT_MAX",
            Duration.ofSeconds(10),
            Duration.ofMillis(10),
            Duration.ofMinutes(10),
            "the reconnect delay's cap: it bounds how long publishing stays stopped once a partition heals");
    public static final Setting<Duration> SHUTDOWN_TIMEOUT = Setting.duration(
            "OUTBOX_RELAY_SHUTDOWN_TIMEOUT",
            Duration.ofSeconds(10),
            Duration.ZERO,
            Duration.ofMinutes(10),
            "how long SIGTERM waits for in-flight confirms");
    public static final Setting<Integer> MARK_BATCH_SIZE =
            Setting.integer("OUTBOX_RELAY_MARK_BATCH_SIZE", 1_000, 1, 50_000, "most outcomes per mark statement");
    public static final Setting<Boolean> DECLARE_TOPOLOGY = Setting.flag(
            "OUTBOX_RELAY_DECLARE_TOPOLOGY",
            true,
            "declare the exchanges, queues and bindings of the relay's classpath and of the registry (every"
                    + " registered contract's exchange, every registered queue) on each connection and when a"
                    + " registration changes them");
    public static final Setting<Set<String>> UNORDERED_TYPES = Setting.words(
            "OUTBOX_RELAY_UNORDERED_TYPES",
            "message types published without waiting for earlier versions of their aggregate, in addition to those"
                    + " whose contract says `\"ordered\": false`");
    public static final Setting<String> UNREGISTERED_TYPES = Setting.oneOf(
            "OUTBOX_RELAY_UNREGISTERED_TYPES",
            "park",
            List.of("park", "json-only"),
            "a row whose message type has no contract, registered or on the relay's classpath: `park` parks it as"
                    + " `CONTRACT_UNKNOWN`, and the relay publishes it by itself once a contract for its type is"
                    + " registered; `json-only` publishes it once its payload is JSON ([Message"
                    + " contracts](../../domain/front-door/README.md#message-contracts) says why `park` is the default)");
    public static final Setting<Duration> REGISTRY_POLL = Setting.duration(
            "OUTBOX_RELAY_REGISTRY_POLL",
            Duration.ofSeconds(10),
            Duration.ofMillis(100),
            Duration.ofHours(1),
            "how often the relay looks for message contracts registered in the database; while it listens"
                    + " (`OUTBOX_RELAY_LISTEN`), a registration's notification makes it look at once");
    public static final Setting<Integer> HTTP_PORT = Setting.integer(
            "OUTBOX_RELAY_HTTP_PORT",
            8081,
            EndpointConfig.OFF,
            65_535,
            "the relay's `/metrics` and `/health` (`-1` turns it off, `0` any free port)");
    public static final Setting<String> HTTP_HOST =
            Setting.text("OUTBOX_RELAY_HTTP_HOST", "0.0.0.0", "the address of the relay's `/metrics` and `/health`");

    public static RelayConfig from(Settings s) {
        boolean cdc = cdc(s);
        return new RelayConfig(
                s.get(RELAY_ID, ProcessIds.hostAndPid()),
                s.get(PUBLISHERS),
                s.get(BATCH_SIZE),
                s.get(CONFIRM_WINDOW),
                // in CDC mode the polling claim is the retry path only
                s.get(POLL_INTERVAL, Duration.ofMillis(cdc ? 1_000 : 100)),
                s.get(CONFIRM_TIMEOUT),
                LeaseConfig.lease(s),
                s.get(STALE_CHECK_INTERVAL),
                s.get(BACKOFF),
                s.get(RECONNECT_INITIAL),
                s.get(RECONNECT_MAX),
                s.get(SHUTDOWN_TIMEOUT),
                s.get(MARK_BATCH_SIZE),
                RelayContracts.fromClasspath(
                        s.get(UNORDERED_TYPES), s.get(UNREGISTERED_TYPES).equals("park")),
                cdc ? CdcConfig.from(s).slot() : null);
    }

    /**
     * {@code OUTBOX_RELAY_MODE}: {@code polling} (the default: claim due rows with {@code FOR UPDATE
     * SKIP LOCKED}) or {@code cdc} (read inserted rows from a logical replication slot; the polling
     * claim is then only the retry path).
     */
    public static boolean cdc(Settings s) {
        return s.get(MODE).equals("cdc");
    }

    /** How often the relay reads the registry when no notification comes. */
    static Duration registryPoll(Settings s) {
        return s.get(REGISTRY_POLL);
    }

    /** Whether the relay declares the exchanges, queues and bindings it knows of. */
    static boolean declareTopology(Settings s) {
        return s.get(DECLARE_TOPOLOGY);
    }

    /**
     * Whether the relay listens for commits. Not in CDC mode by default: there the polling claim is
     * only the retry path, and a notification per insert would wake it for rows the stream
     * publishes anyway.
     */
    static boolean listen(Settings s, boolean cdcMode) {
        return s.get(LISTEN, !cdcMode);
    }

    static EndpointConfig endpoint(Settings s) {
        return EndpointConfig.from(s, HTTP_HOST, HTTP_PORT);
    }

    /** In CDC mode, the slot whose stream hands rows over to the polling claim (the retry path). */
    public boolean cdcMode() {
        return cdcSlot != null;
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
                contracts,
                cdcSlot);
    }
}
