package dev.outbox.persistence;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the HikariCP pool and waits, boundedly, for the database at start-up. */
public final class DataSources {
    private static final Logger LOG = LoggerFactory.getLogger(DataSources.class);

    private DataSources() {
    }

    /**
     * A pool that does not connect yet. Connections carry the application name, so
     * {@code pg_stat_activity} shows which process holds what.
     */
    public static HikariDataSource create(DatabaseConfig config) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(config.url());
        hc.setUsername(config.user());
        hc.setPassword(config.password());
        hc.setMaximumPoolSize(config.maxPoolSize());
        hc.setMinimumIdle(Math.min(2, config.maxPoolSize()));
        hc.setConnectionTimeout(config.connectTimeout().toMillis());
        hc.setValidationTimeout(Math.min(config.connectTimeout().toMillis(), 5_000));
        hc.setPoolName(config.applicationName());
        // do not fail pool construction: start-up waits explicitly, and the relay rides out outages
        hc.setInitializationFailTimeout(-1);
        hc.addDataSourceProperty("ApplicationName", config.applicationName());
        hc.addDataSourceProperty("connectTimeout", Math.max(1, config.connectTimeout().toSeconds()));
        hc.addDataSourceProperty("tcpKeepAlive", true);
        // prepared statements are reused after the first execution: MyBatis re-prepares per session
        hc.addDataSourceProperty("prepareThreshold", 1);
        if (config.customPlans()) {
            hc.addDataSourceProperty("options", "-c plan_cache_mode=force_custom_plan");
        }
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
        throw new DatabaseUnavailableException("database " + ds.getJdbcUrl() + " did not answer within "
                + wait.toSeconds() + "s", last);
    }
}
