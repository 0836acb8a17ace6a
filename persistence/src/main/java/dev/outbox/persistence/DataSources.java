package dev.outbox.persistence;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the HikariCP pool and waits, boundedly, for the database at start-up. */
public final class DataSources {
    private static final Logger LOG = LoggerFactory.getLogger(DataSources.class);

    /**
     * Connections the pool keeps open while nothing borrows them; it opens the others, up to its size,
     * as threads ask, so a starting process connects with these few (a rollout's new pods too).
     */
    public static final int MIN_IDLE = 2;

    /**
     * The most connections a pool of {@code poolSize} holds while its process starts: the idle
     * minimum its filler opens, and the one the start-up wait borrows, which can be opened before
     * the filler is done (seen by the rollout test: three of a pool of three while a relay started).
     */
    public static int startingConnections(int poolSize) {
        return Math.min(MIN_IDLE + 1, poolSize);
    }

    /** How often the pool checks a connection that sat idle (HikariCP's minimum is 30 s). */
    static final Duration KEEPALIVE = Duration.ofSeconds(30);

    /** How long one migration statement may keep the server silent (an index build on a large table). */
    static final Duration MIGRATION_SOCKET_TIMEOUT = Duration.ofMinutes(30);

    private DataSources() {}

    /**
     * A pool that does not connect yet. Connections carry the application name, so
     * {@code pg_stat_activity} shows which process holds what.
     */
    /**
     * A backend notices within a second that its client is gone even while it waits on a lock
     * (PostgreSQL 14+; older servers ignore it). Without this, the backend of a process killed in
     * the middle of a statement that waits on a row lock keeps running until the lock is free,
     * and holds the locks it already took: the chaos soak saw a SIGKILLed relay's rows stay locked
     * for 20 s, until another relay that had been SIGSTOPped mid-transaction woke up and let the
     * orphaned statement finish. A dead process's locks must go with it.
     */
    static final String CHECK_CLIENT_WHILE_WAITING = "DO $$ BEGIN PERFORM set_config("
            + "'client_connection_check_interval', '1000', false); EXCEPTION WHEN undefined_object THEN NULL; END $$";

    /**
     * Driver properties for a connection of its own, outside the pool (a listener, a lock holder):
     * the pool's credentials and connect timeout, TCP keepalive so a dead server or a cut network is
     * noticed rather than never, and the process's application name with {@code suffix} so an
     * operator can tell the connection apart in {@code pg_stat_activity}.
     */
    public static Properties unpooled(DatabaseConfig config, String suffix) {
        Properties p = new Properties();
        if (config.user() != null) {
            p.setProperty("user", config.user());
        }
        if (config.password() != null) {
            p.setProperty("password", config.password());
        }
        p.setProperty("ApplicationName", config.applicationName() + suffix);
        p.setProperty("connectTimeout", String.valueOf(connectTimeoutSeconds(config)));
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("socketTimeout", String.valueOf(socketTimeoutSeconds(config)));
        p.setProperty("cancelSignalTimeout", String.valueOf(connectTimeoutSeconds(config)));
        return p;
    }

    private static long connectTimeoutSeconds(DatabaseConfig config) {
        return Math.max(1, (config.connectTimeout().toMillis() + 999) / 1_000);
    }

    /**
     * pgjdbc takes whole seconds; never 0, which means "wait forever". A statement whose server
     * went silent ends after the socket timeout, or after its statement timeout plus the
     * cancel's own timeout (pgjdbc waits for the cancel it sent), whichever is later.
     */
    static int socketTimeoutSeconds(DatabaseConfig config) {
        return (int) Math.max(1, (config.socketTimeout().toMillis() + 999) / 1_000);
    }

    /**
     * Connections for the migrations alone, with a socket timeout of their own: a migration that
     * builds an index on a large outbox may rightly keep the server busy, and silent, for
     * minutes, but a server that vanished must still end the start-up in the end.
     */
    public static DataSource forMigrations(DatabaseConfig config) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(config.url());
        if (config.user() != null) {
            ds.setUser(config.user());
        }
        if (config.password() != null) {
            ds.setPassword(config.password());
        }
        ds.setApplicationName(config.applicationName() + "-migrations");
        ds.setConnectTimeout((int) Math.max(1, config.connectTimeout().toSeconds()));
        ds.setTcpKeepAlive(true);
        ds.setSocketTimeout((int) Math.max(1, MIGRATION_SOCKET_TIMEOUT.toSeconds()));
        return ds;
    }

    public static HikariDataSource create(DatabaseConfig config) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(config.url());
        hc.setUsername(config.user());
        hc.setPassword(config.password());
        hc.setMaximumPoolSize(config.maxPoolSize());
        hc.setMinimumIdle(Math.min(MIN_IDLE, config.maxPoolSize()));
        hc.setConnectionTimeout(config.connectTimeout().toMillis());
        hc.setValidationTimeout(Math.min(config.connectTimeout().toMillis(), 5_000));
        hc.setPoolName(config.applicationName());
        // do not fail pool construction: start-up waits explicitly, and the relay rides out outages
        hc.setInitializationFailTimeout(-1);
        // pgjdbc reads its properties with Properties.getProperty, which answers null for anything
        // but a String: a number or a boolean here would be dropped without a word (measured: an
        // Integer socketTimeout left the pool's connections without one)
        hc.addDataSourceProperty("ApplicationName", config.applicationName());
        hc.addDataSourceProperty("connectTimeout", String.valueOf(connectTimeoutSeconds(config)));
        hc.addDataSourceProperty("tcpKeepAlive", "true");
        hc.addDataSourceProperty("socketTimeout", String.valueOf(socketTimeoutSeconds(config)));
        hc.addDataSourceProperty("cancelSignalTimeout", String.valueOf(connectTimeoutSeconds(config)));
        // an idle pooled connection to a host that vanished is found and replaced before anyone
        // borrows it (the kernel's own keepalive starts after two hours)
        hc.setKeepaliveTime(KEEPALIVE.toMillis());
        // prepared statements are reused after the first execution: MyBatis re-prepares per session
        hc.addDataSourceProperty("prepareThreshold", "1");
        if (config.customPlans()) {
            hc.addDataSourceProperty("options", "-c plan_cache_mode=force_custom_plan");
        }
        hc.setConnectionInitSql(CHECK_CLIENT_WHILE_WAITING);
        return new HikariDataSource(hc);
    }

    /**
     * Blocks until a connection can be made or {@code wait} has passed.
     *
     * @throws DatabaseUnavailableException naming the URL when the database never answered
     */
    public static void awaitAvailable(HikariDataSource ds, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        long pauseMillis = 200;
        SQLException last = null;
        do {
            try (Connection c = ds.getConnection()) {
                if (c.isValid(5)) {
                    return;
                }
            } catch (SQLException e) {
                last = e;
                LOG.warn("database {} not reachable yet ({}); retrying", ds.getJdbcUrl(), e.getMessage());
            }
            try {
                Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            pauseMillis = Math.min(pauseMillis * 2, 2_000);
        } while (System.nanoTime() < deadline);
        throw new DatabaseUnavailableException(
                "database " + ds.getJdbcUrl() + " did not answer within " + wait.toSeconds() + "s", last);
    }
}
