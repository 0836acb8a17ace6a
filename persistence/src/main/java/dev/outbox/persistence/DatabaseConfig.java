package dev.outbox.persistence;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How to reach PostgreSQL and how large a pool to keep.
 *
 * @param statementTimeout how long one statement may run (the server is asked to cancel it then)
 * @param socketTimeout how long the driver waits for the server to answer at all: past it the
 *     connection is given up. A server that stopped answering without closing the connection (a
 *     network partition, a dead host) is otherwise waited on until the kernel gives up, some
 *     fifteen minutes later, with the statement's thread blocked; the cancel a statement timeout
 *     sends needs the same unreachable server. Longer than the statement timeout, so that a slow
 *     statement is cancelled by the server first
 * @param customPlans plan every statement for its parameters and the table as it is now
 *     ({@code plan_cache_mode = force_custom_plan}) instead of reusing a generic plan: see
 *     {@link #withCustomPlans()}
 */
public record DatabaseConfig(
        String url,
        String user,
        String password,
        int maxPoolSize,
        Duration connectTimeout,
        Duration statementTimeout,
        Duration socketTimeout,
        Duration startupWait,
        String applicationName,
        boolean customPlans) {

    public DatabaseConfig {
        Objects.requireNonNull(url, "url");
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new ConfigurationException("OUTBOX_DB_URL must be a PostgreSQL JDBC URL (jdbc:postgresql://...)");
        }
        if (socketTimeout.compareTo(statementTimeout) <= 0) {
            throw new ConfigurationException("OUTBOX_DB_SOCKET_TIMEOUT (" + Settings.format(socketTimeout)
                    + ") must be longer than OUTBOX_DB_STATEMENT_TIMEOUT (" + Settings.format(statementTimeout)
                    + "): a slow statement is the server's to cancel, a silent server the driver's to give up on");
        }
    }

    /** The statement timeout's default: claims, marks and writes take milliseconds. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(15);

    /** What the socket timeout adds to the statement timeout unless it is set. */
    static final Duration SOCKET_MARGIN = Duration.ofSeconds(5);

    public static final Setting<Optional<String>> URL = Setting.optional(
            "OUTBOX_DB_URL",
            "JDBC URL",
            "embedded PostgreSQL (launcher only)",
            "JDBC URL of PostgreSQL; several hosts for a primary and standbys:"
                    + " `jdbc:postgresql://h1:5432,h2:5432/db?targetServerType=primary&hostRecheckSeconds=2`"
                    + " ([Running on a cluster](#running-on-a-cluster))");
    public static final Setting<Optional<String>> USER =
            Setting.optional("OUTBOX_DB_USER", "text", "the driver's default", "the database user");
    public static final Setting<Optional<String>> PASSWORD =
            Setting.optional("OUTBOX_DB_PASSWORD", "text (secret)", "the driver's default", "the user's password");
    public static final Setting<Integer> POOL_SIZE =
            Setting.integer("OUTBOX_DB_POOL_SIZE", 10, 1, 200, "HikariCP pool size per process");
    public static final Setting<Duration> CONNECT_TIMEOUT = Setting.duration(
            "OUTBOX_DB_CONNECT_TIMEOUT",
            Duration.ofSeconds(5),
            Duration.ofMillis(250),
            Duration.ofMinutes(1),
            "wait for a pooled connection; TCP connect; the bound on a statement's cancel");
    public static final Setting<Duration> STATEMENT_TIMEOUT = Setting.duration(
            "OUTBOX_DB_STATEMENT_TIMEOUT",
            DEFAULT_STATEMENT_TIMEOUT,
            Duration.ofSeconds(1),
            Duration.ofHours(1),
            "how long one statement may run (the server is asked to cancel it)");
    public static final Setting<Duration> SOCKET_TIMEOUT = Setting.duration(
                    "OUTBOX_DB_SOCKET_TIMEOUT",
                    null,
                    Duration.ofSeconds(2),
                    Duration.ofHours(2),
                    "how long the driver waits for a server that says nothing at all before it gives the connection"
                            + " up: a partitioned or dead database host frees every waiting thread within this (or"
                            + " the statement timeout plus the connect timeout, if later), instead of the kernel's"
                            + " fifteen minutes. Must be longer than the statement timeout. Migrations run without it")
            .defaultShownAs("statement timeout + `5s`");
    public static final Setting<Boolean> MIGRATE =
            Setting.flag("OUTBOX_DB_MIGRATE", true, "run the Flyway migrations at start-up");
    public static final Setting<Duration> STARTUP_WAIT = Setting.duration(
            "OUTBOX_STARTUP_WAIT",
            Duration.ofSeconds(30),
            Duration.ZERO,
            Duration.ofHours(1),
            "how long a process waits for the database at start-up");

    /**
     * Reads {@code OUTBOX_DB_*} for a process that needs the database: an unset
     * {@code OUTBOX_DB_URL} stops it, with {@code whenUnset} in the message (to the launchers it
     * means zero-infra mode, which they decide before this).
     */
    public static DatabaseConfig required(Settings settings, String applicationName, String whenUnset) {
        String url =
                settings.get(URL).orElseThrow(() -> new ConfigurationException("OUTBOX_DB_URL is not set" + whenUnset));
        return from(settings, url, applicationName);
    }

    /** {@code OUTBOX_DB_URL}, empty when unset: zero-infra mode to the launchers. */
    public static Optional<String> url(Settings settings) {
        return settings.get(URL);
    }

    /** How long a process waits for its database, or its broker, at start. */
    public static Duration startupWait(Settings settings) {
        return settings.get(STARTUP_WAIT);
    }

    /** Whether this process runs the migrations at start ({@code OUTBOX_DB_MIGRATE}). */
    public static boolean migrate(Settings settings) {
        return settings.get(MIGRATE);
    }

    /** Reads {@code OUTBOX_DB_*} but the URL, which the caller gives. */
    public static DatabaseConfig from(Settings settings, String url, String applicationName) {
        Duration statementTimeout = settings.get(STATEMENT_TIMEOUT);
        return new DatabaseConfig(
                url,
                settings.get(USER).orElse(null),
                settings.get(PASSWORD).orElse(null),
                settings.get(POOL_SIZE),
                settings.get(CONNECT_TIMEOUT),
                statementTimeout,
                settings.get(SOCKET_TIMEOUT, statementTimeout.plus(SOCKET_MARGIN)),
                settings.get(STARTUP_WAIT),
                applicationName,
                false);
    }

    /** A config for tests and tools: defaults everywhere but the connection. */
    public static DatabaseConfig of(String url, String user, String password, String applicationName) {
        return new DatabaseConfig(
                url,
                user,
                password,
                10,
                Duration.ofSeconds(5),
                DEFAULT_STATEMENT_TIMEOUT,
                DEFAULT_STATEMENT_TIMEOUT.plus(SOCKET_MARGIN),
                Duration.ofSeconds(10),
                applicationName,
                false);
    }

    public DatabaseConfig withPoolSize(int size) {
        return new DatabaseConfig(
                url,
                user,
                password,
                size,
                connectTimeout,
                statementTimeout,
                socketTimeout,
                startupWait,
                applicationName,
                customPlans);
    }

    /**
     * For the relay: its claim must cost the same whether the table is empty or holds a backlog
     * of millions. A plan PostgreSQL caches for a prepared statement while the outbox is nearly
     * empty (a relay that started idle) scans the whole table once it is not; it is only replaced
     * when autovacuum next analyses the table, minutes later. Measured by {@code ops/bench}: a
     * relay that had idled on an empty table took 800 ms per claim against a 500k-row backlog.
     * Planning each execution costs well under a millisecond.
     */
    public DatabaseConfig withCustomPlans() {
        return new DatabaseConfig(
                url,
                user,
                password,
                maxPoolSize,
                connectTimeout,
                statementTimeout,
                socketTimeout,
                startupWait,
                applicationName,
                true);
    }

    @Override
    public String toString() {
        return "DatabaseConfig[url=" + url + ", user=" + user + ", pool=" + maxPoolSize + "]";
    }
}
