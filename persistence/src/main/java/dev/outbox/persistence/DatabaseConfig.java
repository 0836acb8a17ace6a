package dev.outbox.persistence;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import java.time.Duration;
import java.util.Objects;

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

    /**
     * Reads {@code OUTBOX_DB_*}. The URL itself comes from the caller, because an unset
     * {@code OUTBOX_DB_URL} means zero-infra mode to the launchers.
     */
    public static DatabaseConfig from(Settings settings, String url, String applicationName) {
        return new DatabaseConfig(
                url,
                settings.optional("OUTBOX_DB_USER").orElse(null),
                settings.optional("OUTBOX_DB_PASSWORD").orElse(null),
                settings.integer("OUTBOX_DB_POOL_SIZE", 10, 1, 200),
                settings.duration(
                        "OUTBOX_DB_CONNECT_TIMEOUT",
                        Duration.ofSeconds(5),
                        Duration.ofMillis(250),
                        Duration.ofMinutes(1)),
                statementTimeout(settings),
                settings.duration(
                        "OUTBOX_DB_SOCKET_TIMEOUT",
                        statementTimeout(settings).plus(SOCKET_MARGIN),
                        Duration.ofSeconds(2),
                        Duration.ofHours(2)),
                settings.duration("OUTBOX_STARTUP_WAIT", Duration.ofSeconds(30), Duration.ZERO, Duration.ofHours(1)),
                applicationName,
                false);
    }

    private static Duration statementTimeout(Settings settings) {
        return settings.duration(
                "OUTBOX_DB_STATEMENT_TIMEOUT", DEFAULT_STATEMENT_TIMEOUT, Duration.ofSeconds(1), Duration.ofHours(1));
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
