package dev.outbox.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.migrations.DatabaseMigrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The PostgreSQL every integration test in this JVM shares: chosen once, migrated once with the
 * real migrations (the outbox's, then the samples' on this classpath: {@link SampleMigrations}), and emptied by {@link #reset()} before each test. Also a few JDBC helpers so
 * tests can check what is really in the tables without going through the code under test.
 */
public final class TestDatabase {
    private static TestDatabase instance;

    private final String url;
    private final String user;
    private final String password;
    private final String source;
    private final HikariDataSource dataSource;

    private TestDatabase(String url, String user, String password, String source) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.source = source;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(4);
        config.setPoolName("testkit");
        this.dataSource = new HikariDataSource(config);
        DatabaseMigrations.migrate(dataSource);
        SampleMigrations.apply(dataSource);
        enableDisabledTriggers();
    }

    /**
     * The migrations create every trigger enabled, and no product code ever disables one; the
     * benchmark does, to measure a relay without LISTEN/NOTIFY, and re-enables it when it ends. A
     * benchmark killed in between (a machine restarted under it) leaves a database in which writers
     * never notify, and every wake-up test of a later run fails for a reason that is not in the code.
     * So the suite starts from the migrations' state, and says what it restored.
     */
    private void enableDisabledTriggers() {
        for (Map<String, Object> t :
                rows("SELECT quote_ident(c.relname) AS tbl, quote_ident(t.tgname) AS trg FROM pg_trigger t"
                        + " JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE NOT t.tgisinternal AND t.tgenabled = 'D' AND n.nspname = current_schema()")) {
            System.err.println("[testkit] trigger " + t.get("trg") + " on " + t.get("tbl") + " was disabled in " + url
                    + " (a benchmark killed before it ended?): enabled again");
            execute("ALTER TABLE " + t.get("tbl") + " ENABLE TRIGGER " + t.get("trg"));
        }
    }

    public static synchronized TestDatabase get() {
        if (instance == null) {
            instance = TestInfrastructure.database();
        }
        return instance;
    }

    static TestDatabase create(String url, String user, String password, String source) {
        return new TestDatabase(url, user, password, source);
    }

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** Where this database came from, for the suite's start-up banner. */
    public String source() {
        return source;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** The same JDBC URL with another host and port: used to route a process through a proxy. */
    public String urlVia(String host, int port) {
        return url.replaceFirst("^jdbc:postgresql://[^/]+/", "jdbc:postgresql://" + host + ":" + port + "/");
    }

    /** The host and port of the URL (default port 5432). */
    public String host() {
        return java.net.URI.create(url.substring("jdbc:".length())).getHost();
    }

    public int port() {
        int p = java.net.URI.create(url.substring("jdbc:".length())).getPort();
        return p == -1 ? 5432 : p;
    }

    /** The environment a process under test needs to reach this database. */
    public Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("OUTBOX_DB_URL", url);
        if (user != null) {
            env.put("OUTBOX_DB_USER", user);
        }
        if (password != null) {
            env.put("OUTBOX_DB_PASSWORD", password);
        }
        return env;
    }

    /**
     * Empties every application table (not a migration history: Flyway's, the outbox's {@value
     * DatabaseMigrations#HISTORY_TABLE}, a consumer's) so each test starts clean.
     */
    public void reset() {
        resetExcept();
    }

    /**
     * {@link #reset()} but for {@code keep}: e.g. {@code outbox_relays} while relay processes run,
     * whose registrations (and the lock keys their sessions hold) must outlive the data.
     */
    public void resetExcept(String... keep) {
        java.util.Set<String> kept = java.util.Set.of(keep);
        List<String> tables = new ArrayList<>();
        for (Map<String, Object> row : rows("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
                + " AND tablename NOT LIKE 'flyway%' AND tablename <> '" + DatabaseMigrations.HISTORY_TABLE + "'")) {
            String name = (String) row.get("tablename");
            if (!kept.contains(name)) {
                tables.add('"' + name + '"');
            }
        }
        if (!tables.isEmpty()) {
            execute("TRUNCATE " + String.join(", ", tables) + " RESTART IDENTITY CASCADE");
        }
    }

    public void execute(String sql) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public int update(String sql, Object... args) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public long count(String sql, Object... args) {
        Object v = scalar(sql, args);
        return v == null ? 0 : ((Number) v).longValue();
    }

    public Object scalar(String sql, Object... args) {
        List<Map<String, Object>> rows = rows(sql, args);
        if (rows.size() != 1) {
            throw new IllegalStateException("expected one row, got " + rows.size() + " from " + sql);
        }
        return rows.get(0).values().iterator().next();
    }

    public List<Map<String, Object>> rows(String sql, Object... args) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                List<Map<String, Object>> out = new ArrayList<>();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        row.put(md.getColumnLabel(i), rs.getObject(i));
                    }
                    out.add(row);
                }
                return out;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
    }
}
