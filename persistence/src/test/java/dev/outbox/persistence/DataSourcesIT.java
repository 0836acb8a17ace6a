package dev.outbox.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The relay's pool plans every statement for the table as it is (a generic plan cached while the
 * outbox was empty scans the whole table once a backlog lands); other pools keep PostgreSQL's
 * default.
 */
class DataSourcesIT {
    private static final TestDatabase DB = TestDatabase.get();

    @Test
    void theRelaysPoolPlansEachStatementForTheTableAsItIsOthersKeepTheDefault() throws Exception {
        DatabaseConfig base = DatabaseConfig.of(DB.url(), DB.user(), DB.password(), "datasources-it");
        assertEquals("force_custom_plan", planCacheMode(base.withCustomPlans()));
        assertEquals("auto", planCacheMode(base));
    }

    private static String planCacheMode(DatabaseConfig config) throws Exception {
        try (HikariDataSource ds = DataSources.create(config);
                Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW plan_cache_mode")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
