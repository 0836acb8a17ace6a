package dev.outbox.testkit;

import dev.outbox.migrations.DatabaseMigrations;
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
public final class ScratchDatabase implements AutoCloseable {
    private final TestDatabase server;
    private final String name;
    private final String url;

    private ScratchDatabase(TestDatabase server, String name) {
        this.server = server;
        this.name = name;
        this.url = server.url().replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name);
    }

    public static ScratchDatabase create() {
        TestDatabase server = TestDatabase.get();
        String name = "outbox_scratch_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        server.execute("CREATE DATABASE " + name);
        return new ScratchDatabase(server, name);
    }

    /** A new data source on this database, named {@code application} in {@code pg_stat_activity}. */
    public DataSource dataSource(String application) {
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

    public DataSource dataSource() {
        return dataSource("scratch");
    }

    public void execute(String sql) {
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Each row of {@code sql} as its columns' text joined by {@code |}. */
    public List<String> rows(String sql) {
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

    public long count(String sql) {
        return Long.parseLong(rows(sql).get(0));
    }

    public boolean tableExists(String table) {
        return count("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = '" + table + "'") == 1;
    }

    /**
     * A table as PostgreSQL holds it, in words that do not depend on how it was built (one script
     * or several): each column with its type, nullability, default and identity; each constraint
     * and index by name with its definition; each trigger. Two tables with equal shapes take the
     * same rows and refuse the same ones.
     */
    public List<String> shape(String table) {
        String t = "'public." + table + "'::regclass";
        List<String> shape = new ArrayList<>();
        shape.addAll(rows("SELECT 'column ' || attname || ' ' || format_type(atttypid, atttypmod)"
                + " || CASE WHEN attnotnull THEN ' not null' ELSE '' END"
                + " || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')"
                + " || CASE attidentity WHEN 'a' THEN ' identity always' WHEN 'd' THEN ' identity by default' ELSE '' END"
                + " FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                + " WHERE a.attrelid = " + t + " AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1"));
        shape.addAll(rows("SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(oid) || CASE WHEN"
                + " convalidated THEN '' ELSE ' (not validated)' END FROM pg_constraint WHERE conrelid = " + t
                + " ORDER BY 1"));
        shape.addAll(rows(
                "SELECT 'index ' || pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = " + t + " ORDER BY 1"));
        shape.addAll(rows("SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = " + t
                + " AND NOT tgisinternal ORDER BY 1"));
        return shape;
    }

    /**
     * Applies {@link ReleasedScripts} the way the releases before {@code outbox_schema_history}
     * did: Flyway's defaults, history in {@code flyway_schema_history}; the database then is one
     * that such a release made, sample tables and all.
     *
     * @return how many scripts were applied
     */
    public int migrateAsReleased() {
        return Flyway.configure(ScratchDatabase.class.getClassLoader())
                .dataSource(dataSource("earlier-release"))
                .locations(ReleasedScripts.LOCATION)
                .load()
                .migrate()
                .migrationsExecuted;
    }

    /**
     * The whole {@code public} schema in words that do not depend on how it was built: every table
     * but Flyway's histories (whose names end in {@code _history}) with its persistence, storage
     * options and {@link #shape}; every sequence; every function; every publication of the database
     * with the tables it publishes and what it publishes. A constraint that a script added {@code
     * NOT VALID} says so ({@code (not validated)}).
     */
    public List<String> schema() {
        List<String> schema = new ArrayList<>();
        List<String> tables = rows("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname NOT LIKE '%\\_history'"
                + " ORDER BY 1");
        for (String table : tables) {
            schema.addAll(rows("SELECT 'table ' || relname || CASE relpersistence WHEN 'u' THEN ' unlogged' ELSE '' END"
                    + " || coalesce(' with ' || array_to_string(reloptions, ', '), '')"
                    + " FROM pg_class WHERE oid = 'public." + table + "'::regclass"));
            for (String line : shape(table)) {
                schema.add(table + ": " + line);
            }
        }
        schema.addAll(rows("SELECT 'sequence ' || s.seqrelid::regclass || ' ' || format_type(s.seqtypid, NULL)"
                + " || ' start ' || s.seqstart || ' by ' || s.seqincrement || ' min ' || s.seqmin || ' max ' || s.seqmax"
                + " || ' cache ' || s.seqcache || CASE WHEN s.seqcycle THEN ' cycle' ELSE '' END"
                + " || coalesce(' owned by ' || (SELECT d.refobjid::regclass || '.' || a.attname FROM pg_depend d"
                + "   JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid"
                + "   WHERE d.classid = 'pg_class'::regclass AND d.objid = s.seqrelid AND d.deptype IN ('a', 'i')"
                + "   LIMIT 1), '')"
                + " FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = 'public' ORDER BY 1"));
        schema.addAll(rows("SELECT 'function ' || pg_get_functiondef(p.oid) FROM pg_proc p"
                + " JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1"));
        schema.addAll(rows("SELECT 'publication ' || p.pubname || ' all tables ' || p.puballtables"
                + " || ' insert ' || p.pubinsert || ' update ' || p.pubupdate || ' delete ' || p.pubdelete"
                + " || ' truncate ' || p.pubtruncate || ' tables ' || coalesce((SELECT string_agg(t.schemaname || '.'"
                + " || t.tablename, ', ' ORDER BY t.schemaname, t.tablename) FROM pg_publication_tables t"
                + " WHERE t.pubname = p.pubname), '') FROM pg_publication p ORDER BY 1"));
        return schema;
    }

    /** How many of the outbox's scripts its own history does not hold yet: all of them before it exists. */
    public int outboxPending() {
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
