package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.testkit.TestDatabase;
import jakarta.inject.Inject;
import java.time.Duration;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Select;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mybatis.guice.transactional.Transactional;

/**
 * A backend ended by the server in the middle of a transaction ({@code pg_terminate_backend}, as
 * in a failover or an operator's kill) is a transient database outage to the caller, so the API
 * answers 503 and the relay waits it out, never a stateless 500. The rollback that follows the
 * failure runs on a connection HikariCP has already closed; it must not replace the failure.
 */
class LostConnectionIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static HikariDataSource pool;
    private static Work work;

    public interface ProbeMapper {
        @Select("SELECT pg_backend_pid()")
        int backendPid();

        @Insert("INSERT INTO lost_connection_probe (note) VALUES (#{note})")
        void insert(String note);
    }

    public static class Work {
        private final ProbeMapper probe;

        @Inject
        public Work(ProbeMapper probe) {
            this.probe = probe;
        }

        /** Writes, has its own backend terminated, then writes again. */
        @Transactional
        public void writeWhileTheBackendIsKilled() {
            probe.insert("before the kill");
            int pid = probe.backendPid();
            DB.scalar("SELECT pg_terminate_backend(?)", pid);
            probe.insert("after the kill");
        }
    }

    @BeforeAll
    static void start() {
        DB.execute("CREATE TABLE IF NOT EXISTS lost_connection_probe (note text)");
        pool = DataSources.create(DatabaseConfig.of(DB.url(), DB.user(), DB.password(), "lost-connection-it"));
        work = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30), ProbeMapper.class))
                .getInstance(Work.class);
    }

    @AfterAll
    static void stop() {
        pool.close();
        DB.execute("DROP TABLE IF EXISTS lost_connection_probe");
    }

    @Test
    void aBackendTerminatedMidTransactionIsATransientOutageAndNothingCommits() {
        DataAccessException e = assertThrows(DataAccessException.class, work::writeWhileTheBackendIsKilled);
        assertInstanceOf(DatabaseUnavailableException.class, e, () -> "translated as " + e);
        assertTrue(e.isTransient());
        assertEquals(0, DB.count("SELECT count(*) FROM lost_connection_probe"), "the first write must not commit");
        // the pool replaced the dead connection: the next transaction works
        assertTrue(work.probe.backendPid() > 0);
    }
}
