package dev.outbox.chaos;

import dev.outbox.testkit.RabbitAdmin;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Every ~100 ms, the connections of every relay process: to PostgreSQL and to the broker by the
 * kernel's sockets of each process ({@link ProcessSockets}), and PostgreSQL's own view,
 * {@code pg_stat_activity} by {@code application_name} (every relay's pool says
 * {@code outbox-relay}, its lock {@code outbox-relay-liveness}, its LISTEN connection
 * {@code outbox-relay-listener}, Flyway {@code outbox-relay-migrations}), each backend tied to its
 * process by the client port. About once a second, what the broker counts: the vhost's connections
 * and their channels ({@code rabbitmqctl list_connections}, which costs a second; the management
 * plugin is not there to ask), tied to the processes by the peer port.
 */
final class ConnectionWatch implements AutoCloseable {
    /** One moment: seconds since the start, and what was open then. */
    record Sample(
            double at,
            int liveRelays,
            int relayBackends,
            int bound,
            int serverBackends,
            int brokerConnections,
            long delivered) {}

    /** A moment when the relays together held more backends than the live ones may. */
    record Excess(double at, int relayBackends, int bound) {}

    private static final String RELAY_APPLICATION = "outbox-relay";

    private final ChaosEnv env;
    private final RolloutOptions options;
    private final List<RolloutRelay> relays;
    private final int databasePort;
    private final int brokerPort;
    private final DoubleSupplier clock;
    private final LongSupplier delivered;
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "rollout-connection-watch");
        t.setDaemon(true);
        return t;
    });

    final List<Sample> samples = new CopyOnWriteArrayList<>();
    final List<Excess> excesses = new CopyOnWriteArrayList<>();
    final AtomicLong brokerSamples = new AtomicLong();
    final AtomicLong failures = new AtomicLong();
    volatile String lastFailure = "";
    /** When each relay was first seen exited. */
    private final Map<RolloutRelay, Double> goneAt = new HashMap<>();
    /** Client port (database or broker) -> the relay holding it, as last seen. */
    private volatile Map<Integer, RolloutRelay> ports = Map.of();

    private Connection db;
    private volatile boolean closing;

    ConnectionWatch(
            ChaosEnv env,
            RolloutOptions options,
            List<RolloutRelay> relays,
            int databasePort,
            int brokerPort,
            DoubleSupplier clock,
            LongSupplier delivered) {
        this.env = env;
        this.options = options;
        this.relays = relays;
        this.databasePort = databasePort;
        this.brokerPort = brokerPort;
        this.clock = clock;
        this.delivered = delivered;
    }

    void start() {
        timer.scheduleAtFixedRate(guarded("sample", this::sample), 0, 100, TimeUnit.MILLISECONDS);
        if (env.rabbitmqctl) {
            // each call takes about a second of its own
            timer.scheduleWithFixedDelay(guarded("broker", this::sampleBroker), 0, 500, TimeUnit.MILLISECONDS);
        }
    }

    /** A task that reports and counts what it throws: a scheduled task that throws is never run again. */
    private Runnable guarded(String what, ThrowingTask task) {
        return () -> {
            try {
                task.run();
            } catch (Exception | Error e) { // NOPMD: the task boundary, see above
                if (closing) {
                    return; // stopped in the middle of a sample: nothing failed
                }
                if (failures.getAndIncrement() < 5) {
                    System.out.println("[rollout] connection watch (" + what + ") failed, sampling on: " + e);
                }
                lastFailure = what + ": " + e;
                if (e instanceof SQLException) {
                    closeDatabase();
                }
            }
        };
    }

    @FunctionalInterface
    private interface ThrowingTask {
        void run() throws Exception;
    }

    private void sample() throws IOException, SQLException {
        double now = clock.getAsDouble();
        Map<Long, ProcessSockets.Socket> table = ProcessSockets.table();
        Map<Integer, RolloutRelay> owners = new HashMap<>();
        Map<RolloutRelay, Integer> databaseCounts = new HashMap<>();
        int live = 0;
        int bound = 0;
        int broker = 0;
        for (RolloutRelay r : relays) {
            if (!r.alive()) {
                // a relay just gone may leave its backends for a moment: it counts against the bound a second longer
                double gone = goneAt.computeIfAbsent(r, k -> now);
                if (now - gone <= 1.0) {
                    bound += options.databaseBound();
                }
                continue;
            }
            bound += options.databaseBound();
            live++;
            int database = 0;
            int amqp = 0;
            for (ProcessSockets.Socket s : ProcessSockets.of(r.process.pid(), table)) {
                if (s.remotePort() == databasePort) {
                    database++;
                    owners.put(s.localPort(), r);
                } else if (s.remotePort() == brokerPort) {
                    amqp++;
                    owners.put(s.localPort(), r);
                }
            }
            databaseCounts.put(r, database);
            broker += amqp;
            if (amqp > r.peakBroker) {
                r.peakBroker = amqp;
            }
        }
        ports = owners;
        Map<RolloutRelay, Map<String, Integer>> byName = new HashMap<>();
        int relayBackends = 0;
        int serverBackends = 0;
        for (Map.Entry<String, Integer> backend : backends()) {
            serverBackends++;
            String name = backend.getKey();
            if (name == null || !name.startsWith(RELAY_APPLICATION)) {
                continue;
            }
            relayBackends++;
            RolloutRelay owner = owners.get(backend.getValue());
            if (owner != null) {
                byName.computeIfAbsent(owner, k -> new TreeMap<>()).merge(name, 1, Integer::sum);
            }
        }
        for (Map.Entry<RolloutRelay, Integer> e : databaseCounts.entrySet()) {
            RolloutRelay r = e.getKey();
            if (e.getValue() > r.peakDatabase) {
                r.peakDatabase = e.getValue();
                r.peakDatabaseByName = Map.copyOf(byName.getOrDefault(r, Map.of()));
            }
        }
        if (relayBackends > bound) {
            excesses.add(new Excess(now, relayBackends, bound));
        }
        samples.add(new Sample(now, live, relayBackends, bound, serverBackends, broker, delivered.getAsLong()));
    }

    /**
     * Every client backend of the server: application name and client port, ours (the run's
     * database) first; the server's whole count says how much room the rest of the machine leaves.
     */
    private List<Map.Entry<String, Integer>> backends() throws SQLException {
        if (db == null) {
            Properties p = new Properties();
            if (env.dbUser != null) {
                p.setProperty("user", env.dbUser);
            }
            if (env.dbPassword != null) {
                p.setProperty("password", env.dbPassword);
            }
            p.setProperty("ApplicationName", "outbox-rollout-watch");
            db = DriverManager.getConnection(env.dbUrl, p);
        }
        List<Map.Entry<String, Integer>> out = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT CASE WHEN datname = current_database()"
                        + " THEN application_name END, client_port FROM pg_stat_activity"
                        + " WHERE backend_type = 'client backend'");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(Map.entry(rs.getString(1) == null ? "" : rs.getString(1), rs.getInt(2)));
            }
        }
        return out;
    }

    /** The broker's count of each relay's connections and channels, by the peer port of each connection. */
    private void sampleBroker() throws IOException, InterruptedException {
        String out = RabbitAdmin.run("list_connections", "vhost", "peer_port", "channels", "--no-table-headers");
        Map<RolloutRelay, int[]> seen = new HashMap<>();
        Map<Integer, RolloutRelay> owners = ports;
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\t");
            if (f.length != 3 || !f[0].equals(env.vhost)) {
                continue;
            }
            RolloutRelay r = owners.get(Integer.parseInt(f[1].trim()));
            if (r != null) {
                int[] c = seen.computeIfAbsent(r, k -> new int[2]);
                c[0]++;
                c[1] += Integer.parseInt(f[2].trim());
            }
        }
        for (RolloutRelay r : relays) {
            int[] c = seen.getOrDefault(r, new int[2]);
            r.peakBrokerCounted = Math.max(r.peakBrokerCounted, c[0]);
            r.peakChannels = Math.max(r.peakChannels, c[1]);
        }
        brokerSamples.incrementAndGet();
    }

    private void closeDatabase() {
        Connection c = db;
        db = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // the connection is what failed; a new one is opened at the next sample
            }
        }
    }

    @Override
    public void close() {
        closing = true;
        timer.shutdownNow();
        try {
            if (!timer.awaitTermination(5, TimeUnit.SECONDS)) {
                System.out.println("[rollout] the connection watch did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeDatabase();
    }
}
