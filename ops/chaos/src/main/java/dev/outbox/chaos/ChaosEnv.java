package dev.outbox.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.testkit.BrokerEndpoint;
import dev.outbox.testkit.RabbitAdmin;
import dev.outbox.testkit.SampleMigrations;
import dev.outbox.testkit.TestDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The database and vhost a soak owns. The server and broker are the ones the tests would use
 * ({@code OUTBOX_TEST_*}, else Testcontainers, else embedded); on them the soak drops and creates
 * a database and (on a local RabbitMQ) a vhost of its own, so it never touches anyone's data.
 */
final class ChaosEnv implements AutoCloseable {
    static final String APPLICATION_NAME = "outbox-chaos";

    final String dbUrl;
    final String dbUser;
    final String dbPassword;
    final String amqpUri;
    final String vhost;
    /** True when {@code rabbitmqctl} on this host administers the broker (a local RabbitMQ). */
    final boolean rabbitmqctl;
    /** Settings every process under test gets besides the database's and the broker's. */
    final Map<String, String> processEnv;

    final String description;
    private final HikariDataSource dataSource;

    private ChaosEnv(
            String dbUrl,
            String dbUser,
            String dbPassword,
            String amqpUri,
            String vhost,
            boolean rabbitmqctl,
            Map<String, String> processEnv,
            String description) {
        this.dbUrl = dbUrl;
        this.dbUser = dbUser;
        this.dbPassword = dbPassword;
        this.amqpUri = amqpUri;
        this.vhost = vhost;
        this.rabbitmqctl = rabbitmqctl;
        this.processEnv = Map.copyOf(processEnv);
        this.description = description;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(dbUrl);
        config.setUsername(dbUser);
        config.setPassword(dbPassword);
        config.setMaximumPoolSize(6);
        config.setPoolName(APPLICATION_NAME);
        config.addDataSourceProperty("ApplicationName", APPLICATION_NAME);
        this.dataSource = new HikariDataSource(config);
    }

    static ChaosEnv create(ChaosOptions o) throws Exception {
        ChaosEnv env = owned(o.database(), o.vhost());
        env.prepare();
        return env;
    }

    /**
     * A database and vhost of the run's own, dropped and created again on the server and broker
     * the tests use, the database migrated; nothing of the soak's own in it yet.
     */
    static ChaosEnv owned(String database, String vhostName) throws Exception {
        TestDatabase base = TestDatabase.get();
        String runUrl = recreateDatabase(
                base.url(),
                base.user(),
                base.password(),
                database,
                "--db names the database the tests use (" + database
                        + "): the run drops its database, give it another one");
        BrokerEndpoint broker = BrokerEndpoint.get();
        String uri = broker.uri();
        String vhost = RabbitAdmin.vhostOf(uri);
        boolean ctl = broker.localRabbitmqctl() && RabbitAdmin.available();
        if (ctl) {
            vhost = vhostName;
            if (RabbitAdmin.run("list_vhosts", "name").lines().anyMatch(vhost::equals)) {
                RabbitAdmin.run("delete_vhost", vhost);
            }
            RabbitAdmin.run("add_vhost", vhost);
            String user = URI.create(uri).getUserInfo();
            user = user == null ? "guest" : user.split(":", 2)[0];
            RabbitAdmin.run("set_permissions", "-p", vhost, user, ".*", ".*", ".*");
            URI u = URI.create(uri);
            uri = u.getScheme() + "://" + (u.getRawUserInfo() == null ? "" : u.getRawUserInfo() + "@") + u.getHost()
                    + ":" + (u.getPort() == -1 ? 5672 : u.getPort()) + "/"
                    + URLEncoder.encode(vhost, StandardCharsets.UTF_8);
        }
        ChaosEnv env = new ChaosEnv(
                runUrl,
                base.user(),
                base.password(),
                uri,
                vhost,
                ctl,
                Map.of(),
                "database " + runUrl + " (" + base.source() + "), broker vhost " + vhost + " (" + broker.source()
                        + (ctl ? ", rabbitmqctl available" : ", no rabbitmqctl: broker faults off") + ")");
        DatabaseMigrations.migrate(env.dataSource);
        // its processes start with OUTBOX_DB_MIGRATE=false: the samples' tables are made here
        SampleMigrations.apply(env.dataSource);
        return env;
    }

    /**
     * The run's database and vhost on the cluster of {@code ops/cluster.sh} ({@code cluster}: the
     * settings it wrote): the database on whichever PostgreSQL is the primary, the vhost through
     * node {@code c1}; every process declares quorum queues.
     */
    static ChaosEnv forCluster(Map<String, String> cluster, String database, String vhost) throws Exception {
        String baseUrl = required(cluster, "OUTBOX_DB_URL");
        String user = cluster.get("OUTBOX_DB_USER");
        String password = cluster.get("OUTBOX_DB_PASSWORD");
        String runUrl = recreateDatabase(
                baseUrl,
                user,
                password,
                database,
                "the run's database must not be the cluster's own (" + database + ")");
        String uri = required(cluster, "OUTBOX_AMQP_URI");
        if (clusterctl("list_vhosts", "name").lines().anyMatch(vhost::equals)) {
            clusterctl("delete_vhost", vhost);
        }
        clusterctl("add_vhost", vhost);
        clusterctl("set_permissions", "-p", vhost, "guest", ".*", ".*", ".*");
        String runUri =
                uri.replaceFirst("^(amqps?://[^/]+)/.*$", "$1/" + URLEncoder.encode(vhost, StandardCharsets.UTF_8));
        Map<String, String> processEnv = new LinkedHashMap<>();
        processEnv.put("OUTBOX_AMQP_QUEUE_TYPE", cluster.getOrDefault("OUTBOX_AMQP_QUEUE_TYPE", "quorum"));
        ChaosEnv env = new ChaosEnv(
                runUrl,
                user,
                password,
                runUri,
                vhost,
                false,
                processEnv,
                "cluster: database " + runUrl + ", broker " + dev.outbox.config.Settings.maskUri(runUri) + ", queues "
                        + processEnv.get("OUTBOX_AMQP_QUEUE_TYPE"));
        DatabaseMigrations.migrate(env.dataSource);
        // its processes start with OUTBOX_DB_MIGRATE=false: the samples' tables are made here
        SampleMigrations.apply(env.dataSource);
        env.prepare();
        return env;
    }

    /**
     * Drops (after ending its sessions) and creates the run's database on the server of
     * {@code baseUrl}; returns its URL. {@code refusal} is the message when the run would drop the
     * database the URL already names.
     */
    private static String recreateDatabase(
            String baseUrl, String user, String password, String database, String refusal) throws SQLException {
        String runUrl = baseUrl.replaceFirst("^(jdbc:postgresql://[^/]+/)[^?]*", "$1" + database);
        if (runUrl.equals(baseUrl)) {
            throw new IllegalArgumentException(refusal);
        }
        try (Connection c = DriverManager.getConnection(baseUrl, user, password);
                Statement s = c.createStatement()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE datname = ? AND pid <> pg_backend_pid()")) {
                ps.setString(1, database);
                ps.execute();
            }
            dropSlotsOf(c, database);
            s.execute("DROP DATABASE IF EXISTS " + database);
            s.execute("CREATE DATABASE " + database);
        }
        return runUrl;
    }

    /**
     * A CDC run leaves a logical replication slot in its database, and PostgreSQL refuses to drop
     * a database a slot belongs to. Its reader's session was just ended; the slot is free once the
     * walsender has gone.
     */
    private static void dropSlotsOf(Connection c, String database) throws SQLException {
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (true) {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(slot_name)"
                    + " FROM pg_replication_slots WHERE database = ? AND NOT active")) {
                ps.setString(1, database);
                ps.execute();
            }
            try (PreparedStatement ps =
                    c.prepareStatement("SELECT count(*) FROM pg_replication_slots WHERE database = ?")) {
                ps.setString(1, database);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return;
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("a replication slot of database " + database + " is still read");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the slots of " + database, e);
            }
        }
    }

    private static String required(Map<String, String> settings, String name) {
        String v = settings.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " missing from the cluster's settings");
        }
        return v;
    }

    /** {@code ops/cluster.sh} with arguments (a node kill, a restart, the database failover); its output is ours. */
    static void clusterScript(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ops/cluster.sh"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed with " + p.exitValue());
        }
    }

    /** {@code rabbitmqctl} against the cluster's first node (any live node would do). */
    static String clusterctl(String... args) throws IOException, InterruptedException {
        return clusterctlOn("c1@localhost", args);
    }

    static String clusterctlOn(String node, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("-n", node));
        command.addAll(List.of(args));
        return RabbitAdmin.run(command.toArray(String[]::new));
    }

    String brokerHost() {
        return URI.create(amqpUri).getHost();
    }

    int brokerPort() {
        int p = URI.create(amqpUri).getPort();
        return p == -1 ? 5672 : p;
    }

    /** The broker URI with another host and port: the relays reach the broker through a proxy. */
    String amqpUriVia(String host, int port) {
        URI u = URI.create(amqpUri);
        return u.getScheme() + "://" + (u.getRawUserInfo() == null ? "" : u.getRawUserInfo() + "@") + host + ":" + port
                + (u.getRawPath() == null ? "" : u.getRawPath());
    }

    /** What every process under test needs to reach the run's database. */
    Map<String, String> databaseEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("OUTBOX_DB_URL", dbUrl);
        if (dbUser != null) {
            env.put("OUTBOX_DB_USER", dbUser);
        }
        if (dbPassword != null) {
            env.put("OUTBOX_DB_PASSWORD", dbPassword);
        }
        return env;
    }

    javax.sql.DataSource dataSource() {
        return dataSource;
    }

    /**
     * What the soak adds to the run's database: the ids of the generated rows, and the product's
     * own rows without them, which the invariants about orders and the ledger read.
     */
    private void prepare() throws SQLException {
        try (Connection c = connection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE chaos_generated (id uuid PRIMARY KEY)");
            s.execute("CREATE VIEW chaos_product_outbox AS SELECT * FROM message_outbox m"
                    + " WHERE NOT EXISTS (SELECT 1 FROM chaos_generated g WHERE g.id = m.id)");
        }
    }

    Connection connection() throws SQLException {
        return dataSource.getConnection();
    }

    long count(String sql, Object... args) {
        List<Map<String, Object>> r = rows(sql, args);
        Object v = r.get(0).values().iterator().next();
        return v == null ? 0 : ((Number) v).longValue();
    }

    void execute(String sql, Object... args) {
        try (Connection c = connection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.execute();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    List<Map<String, Object>> rows(String sql, Object... args) {
        try (Connection c = connection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                List<Map<String, Object>> out = new ArrayList<>();
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 1; i <= n; i++) {
                        row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
                    }
                    out.add(row);
                }
                return out;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    static String rabbitmqctl(String... args) throws IOException, InterruptedException {
        return RabbitAdmin.run(args);
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
