package dev.outbox.migrations;

import dev.outbox.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An empty database of its own on the test server, for tests of what migrations do to a whole
 * schema (the shared test database is migrated already). Dropped on {@link #close}.
 */
final class ScratchDatabase implements AutoCloseable {
    private final TestDatabase server;
    private final String name;
    private final String url;

    private ScratchDatabase(TestDatabase server, String name) {
        this.server = server;
        this.name = name;
        this.url = server.url().replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name);
    }

    static ScratchDatabase create() {
        TestDatabase server = TestDatabase.get();
        String name = "outbox_scratch_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        server.execute("CREATE DATABASE " + name);
        return new ScratchDatabase(server, name);
    }

    /** A new data source on this database, named {@code application} in {@code pg_stat_activity}. */
    DataSource dataSource(String application) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        if (server.user() != null) {
            ds.setUser(server.user());
        }
        if (server.password() != null) {
            ds.setPassword(server.password());
        }
        ds.setApplicationName(application);
        return ds;
    }

    DataSource dataSource() {
        return dataSource("scratch");
    }

    void execute(String sql) {
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Each row of {@code sql} as its columns' text joined by {@code |}. */
    List<String> rows(String sql) {
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            List<String> rows = new ArrayList<>();
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    row.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                rows.add(row.toString());
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    long count(String sql) {
        return Long.parseLong(rows(sql).get(0));
    }

    boolean tableExists(String table) {
        return count("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = '" + table + "'") == 1;
    }

    /** How many of the outbox's scripts its own history does not hold yet: all of them before it exists. */
    int outboxPending() {
        return Flyway.configure(DatabaseMigrations.class.getClassLoader())
                .dataSource(dataSource())
                .locations(DatabaseMigrations.LOCATION)
                .table(DatabaseMigrations.HISTORY_TABLE)
                .load()
                .info()
                .pending()
                .length;
    }

    @Override
    public void close() {
        server.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
}
