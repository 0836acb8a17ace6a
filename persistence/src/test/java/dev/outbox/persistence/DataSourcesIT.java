package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * The pool's connections really carry the driver settings they are given. pgjdbc reads them as
 * strings only: a number handed to HikariCP was dropped without a word, which left every pooled
 * connection without a socket timeout (a partitioned database then held request and relay
 * threads until the kernel gave up).
 */
class DataSourcesIT {
    private final TestDatabase db = TestDatabase.get();

    private DatabaseConfig config(Map<String, String> env) {
        Map<String, String> all = new java.util.HashMap<>(env);
        all.putAll(db.env());
        all.remove("OUTBOX_DB_URL");
        return DatabaseConfig.from(new Settings(all), db.url(), "datasources-it");
    }

    @Test
    void pooledConnectionsCarryTheSocketTimeoutAndThePrepareThreshold() throws Exception {
        DatabaseConfig config = config(Map.of("OUTBOX_DB_STATEMENT_TIMEOUT", "5s", "OUTBOX_DB_SOCKET_TIMEOUT", "7s"));
        try (HikariDataSource pool = DataSources.create(config);
                Connection c = pool.getConnection()) {
            assertEquals(7_000, c.getNetworkTimeout(), "socketTimeout reached the driver");
            assertEquals(1, c.unwrap(PGConnection.class).getPrepareThreshold(), "prepareThreshold reached the driver");
        }
    }

    @Test
    void theSocketTimeoutDefaultsToTheStatementTimeoutPlusAMargin() throws Exception {
        DatabaseConfig config = config(Map.of("OUTBOX_DB_STATEMENT_TIMEOUT", "9s"));
        assertEquals(Duration.ofSeconds(14), config.socketTimeout());
        assertEquals(Duration.ofSeconds(20), config(Map.of()).socketTimeout(), "15 s statements, 20 s socket");
        try (HikariDataSource pool = DataSources.create(config(Map.of()));
                Connection c = pool.getConnection()) {
            assertEquals(20_000, c.getNetworkTimeout());
        }
    }

    @Test
    void aSocketTimeoutNotLongerThanTheStatementTimeoutIsRefusedAtStart() {
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> config(Map.of("OUTBOX_DB_STATEMENT_TIMEOUT", "10s", "OUTBOX_DB_SOCKET_TIMEOUT", "10s")));
        assertEquals(true, e.getMessage().contains("OUTBOX_DB_SOCKET_TIMEOUT"), e.getMessage());
    }
}
