package dev.outbox.persistence;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.testkit.TcpProxy;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A process that dies while one of its statements waits on a row lock must not leave its backend
 * behind holding the locks it already took: the pools ask PostgreSQL to check the client while a
 * statement waits ({@code client_connection_check_interval}). Here the client's connection is cut
 * (TCP reset through a proxy) while its update waits on a lock the test holds.
 */
class OrphanedBackendIT {
    private static final TestDatabase DB = TestDatabase.get();
    private TcpProxy proxy;
    private HikariDataSource pool;

    @BeforeEach
    void setUp() throws Exception {
        DB.execute("CREATE TABLE IF NOT EXISTS orphan_probe (id int PRIMARY KEY, n int)");
        DB.execute("TRUNCATE orphan_probe");
        DB.execute("INSERT INTO orphan_probe VALUES (1, 0), (2, 0)");
        proxy = TcpProxy.start(DB.host(), DB.port());
        pool = DataSources.create(
                DatabaseConfig.of(DB.urlVia(proxy.host(), proxy.port()), DB.user(), DB.password(), "orphan-it"));
    }

    @AfterEach
    void tearDown() {
        pool.close();
        proxy.close();
        DB.execute("DROP TABLE IF EXISTS orphan_probe");
    }

    @Test
    void aBackendWhoseClientIsGoneLetsGoOfItsLocksWhileItWaitsOnAnother() throws Exception {
        try (Connection holder = DriverManager.getConnection(DB.url(), DB.user(), DB.password())) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("UPDATE orphan_probe SET n = n + 1 WHERE id = 2"); // the lock the victim will wait on
            }
            CompletableFuture<Void> victim = CompletableFuture.runAsync(() -> {
                try (Connection c = pool.getConnection();
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    s.execute("UPDATE orphan_probe SET n = n + 1 WHERE id = 1"); // taken
                    s.execute("UPDATE orphan_probe SET n = n + 1 WHERE id = 2"); // waits on the holder
                    c.commit();
                } catch (Exception e) {
                    // the client side sees its connection reset: expected
                }
            });
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> DB.count("SELECT count(*) FROM pg_stat_activity"
                                    + " WHERE application_name = 'orphan-it' AND wait_event_type = 'Lock'")
                            == 1);

            proxy.cut(); // the client is gone; its backend still waits on the holder's lock

            // while the holder keeps its lock, the orphaned backend must go and release row 1
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> DB.count("SELECT count(*) FROM pg_stat_activity"
                                    + " WHERE application_name = 'orphan-it' AND wait_event_type = 'Lock'")
                            == 0);
            try (Connection other = DriverManager.getConnection(DB.url(), DB.user(), DB.password());
                    Statement s = other.createStatement()) {
                s.execute("SET lock_timeout = '2s'");
                assertEquals(
                        1,
                        s.executeUpdate("UPDATE orphan_probe SET n = n + 10 WHERE id = 1"),
                        "row 1 is free again although the holder still holds row 2");
            }
            holder.rollback();
            victim.get();
        }
    }
}
