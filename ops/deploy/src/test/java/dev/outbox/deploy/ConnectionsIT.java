package dev.outbox.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.api.ApiApp;
import dev.outbox.config.Settings;
import dev.outbox.consumer.runtime.ConsumerApp;
import dev.outbox.deploy.Workloads.Workload;
import dev.outbox.migrations.DatabaseMigrations;
import dev.outbox.relay.RelayApp;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.junit.TestResources;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The connection formula ({@link Connections}) against PostgreSQL's own count: the API, the relay
 * and the ledger consumer run in this JVM on the test database with a pool of 3, and a sampler
 * counts their backends in {@code pg_stat_activity} by {@code application_name} every few
 * milliseconds. Each start is held inside Flyway (the test holds Flyway's advisory lock) until
 * its migration connections show, so the start's term is seen, not hoped for; then orders load
 * the API, the relay and the consumer. Each process stays within its formula, and each term of it
 * shows. The local overlay, at a rollout's largest, fits the test database's own limit.
 */
class ConnectionsIT {
    private static final TestDatabase DB = TestDatabase.get();
    private static final int POOL = 3;
    /** Flyway's advisory lock on the product's history table. */
    private static final long FLYWAY_LOCK =
            DatabaseMigrations.flywayLockKey("public", DatabaseMigrations.HISTORY_TABLE);
    /** People and tools beside the service (psql, a metrics exporter, a backup), as in the README. */
    private static final int MARGIN = 20;

    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @RegisterExtension
    final TestResources closing = new TestResources();

    @Test
    void eachProcessStaysWithinItsFormulaAndEveryTermOfItShows() throws Exception {
        Settings settings = new Settings(TestProcesses.freshEnv(Map.of("OUTBOX_DB_POOL_SIZE", String.valueOf(POOL))));
        Sampler sampler = closing.add(new Sampler());

        ApiApp api = closing.add(startHeldInFlyway(() -> ApiApp.start(settings), "outbox-api", sampler));
        RelayApp relay = closing.add(startHeldInFlyway(() -> RelayApp.start(settings), "outbox-relay", sampler));
        ConsumerApp ledger = closing.add(startHeldInFlyway(
                () -> ConsumerApp.start(settings, LedgerConsumer.REGISTRATION), "outbox-ledger", sampler));

        int orders = placeAndCaptureConcurrently(api.port(), 6, 20);
        await().atMost(Duration.ofSeconds(60)).until(() -> DB.count("SELECT count(*) FROM ledger_entries") == orders);

        Map<OutboxProcess, Connections> formula = Map.of(
                OutboxProcess.API, Connections.of(OutboxProcess.API, settings),
                OutboxProcess.RELAY, Connections.of(OutboxProcess.RELAY, settings),
                OutboxProcess.LEDGER, Connections.of(OutboxProcess.LEDGER, settings));
        for (var e : formula.entrySet()) {
            String app = e.getKey().image;
            Connections c = e.getValue();
            int peak = sampler.peakOf(app);
            System.out.println(app + ": formula " + c + ", seen at once at most " + peak + " (pool "
                    + sampler.max(app) + ", migrations " + sampler.max(app + "-migrations") + ", liveness "
                    + sampler.max(app + "-liveness") + ", listener " + sampler.max(app + "-listener") + ")");
            assertTrue(peak <= c.peak(), app + " held " + peak + " connections at once, over its formula " + c);
            assertEquals(c.migrations(), sampler.max(app + "-migrations"), app + ": Flyway's connections");
            assertTrue(
                    sampler.max(app) >= Math.min(2, c.pool()) && sampler.max(app) <= c.pool(),
                    app + ": the pool held " + sampler.max(app) + " of " + c.pool());
            assertEquals(c.liveness(), sampler.max(app + "-liveness"), app + ": the liveness session");
            assertEquals(c.listener(), sampler.max(app + "-listener"), app + ": the LISTEN connection");
        }
        assertEquals(POOL, sampler.max("outbox-api"), "six writers at once fill the API's pool");

        ledger.close();
        relay.close();
        api.close();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> sampler.current().keySet().stream().noneMatch(a -> a.startsWith("outbox-")));
    }

    /** The local overlay (one of each, a rollout's surge on top) against this database's own limit. */
    @Test
    void theLocalOverlayFitsTheTestDatabasesConnections() throws SQLException {
        int max;
        int reserved = 0;
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT name, setting::int FROM pg_settings WHERE name IN"
                        + " ('max_connections', 'superuser_reserved_connections', 'reserved_connections')")) {
            Map<String, Integer> values = new HashMap<>();
            while (r.next()) {
                values.put(r.getString(1), r.getInt(2));
            }
            max = values.get("max_connections");
            reserved += values.getOrDefault("superuser_reserved_connections", 0);
            reserved += values.getOrDefault("reserved_connections", 0);
        }
        int total = 0;
        for (Workload w : Workloads.of(ManifestFiles.OVERLAYS.resolve("local"))) {
            total += w.podsDuringARollout()
                    * w.process().connections(w.settings()).peak();
        }
        assertTrue(
                total <= max - reserved - MARGIN,
                "the local overlay may hold " + total + " connections; this PostgreSQL takes " + max + " - " + reserved
                        + " reserved - " + MARGIN);
    }

    /**
     * Starts a process while this test holds Flyway's lock, so that the process waits inside its
     * migration with its connections open; lets it go once the sampler has seen them.
     */
    private static <T> T startHeldInFlyway(Supplier<T> start, String app, Sampler sampler) throws Exception {
        CompletableFuture<T> started;
        try (Connection lock = connect();
                Statement s = lock.createStatement()) {
            s.execute("SELECT pg_advisory_lock(" + FLYWAY_LOCK + ")");
            started = CompletableFuture.supplyAsync(start);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> sampler.current().getOrDefault(app + "-migrations", 0) >= Connections.FLYWAY);
            s.execute("SELECT pg_advisory_unlock(" + FLYWAY_LOCK + ")");
        }
        return started.get(60, TimeUnit.SECONDS);
    }

    private int placeAndCaptureConcurrently(int port, int clients, int each) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int i = 0; i < clients * each; i++) {
                all.add(CompletableFuture.runAsync(
                        () -> {
                            String id = post(
                                            port,
                                            "/orders",
                                            "{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"SKU-1\","
                                                    + "\"quantity\":2,\"unitPrice\":\"21.25\"}]}")
                                    .replaceAll("(?s).*\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
                            post(port, "/orders/" + id + "/capture", "{\"amount\":\"42.50\"}");
                        },
                        pool));
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            return clients * each;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The response's body; a refusal fails the load, and the test with it. */
    private String post(int port, String path, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response =
                http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).join();
        assertTrue(response.statusCode() < 300, path + ": " + response.statusCode() + " " + response.body());
        return response.body();
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(DB.url(), DB.user(), DB.password());
    }

    /**
     * Counts this database's backends by application name every few milliseconds, on a connection
     * of its own (named so it counts itself nowhere), and keeps the most seen at once: per name,
     * and per process (its pool and the connections named after it).
     */
    private static final class Sampler implements AutoCloseable {
        private final Map<String, Integer> max = new ConcurrentHashMap<>();
        private volatile Map<String, Integer> current = Map.of();
        private final Connection connection;
        private final Thread thread;
        private volatile boolean running = true;

        Sampler() throws SQLException {
            java.util.Properties p = new java.util.Properties();
            p.setProperty("user", DB.user());
            if (DB.password() != null) {
                p.setProperty("password", DB.password());
            }
            p.setProperty("ApplicationName", "connections-sampler");
            connection = DriverManager.getConnection(DB.url(), p);
            thread = new Thread(this::run, "connections-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try (var s = connection.prepareStatement("SELECT application_name, count(*) FROM pg_stat_activity"
                    + " WHERE datname = current_database() GROUP BY application_name")) {
                while (running) {
                    Map<String, Integer> now = new HashMap<>();
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            now.put(r.getString(1), r.getInt(2));
                        }
                    }
                    current = now;
                    now.forEach((app, n) -> max.merge(app, n, Math::max));
                    for (OutboxProcess p : OutboxProcess.values()) {
                        int total = now.entrySet().stream()
                                .filter(e ->
                                        e.getKey().equals(p.image) || e.getKey().startsWith(p.image + "-"))
                                .mapToInt(Map.Entry::getValue)
                                .sum();
                        max.merge("process:" + p.image, total, Math::max);
                    }
                    Thread.onSpinWait();
                }
            } catch (SQLException e) {
                if (running) {
                    throw new IllegalStateException("the sampler lost its connection", e);
                }
            }
        }

        Map<String, Integer> current() {
            return current;
        }

        int max(String app) {
            return max.getOrDefault(app, 0);
        }

        int peakOf(String process) {
            return max("process:" + process);
        }

        @Override
        public void close() throws Exception {
            running = false;
            thread.join(5_000);
            connection.close();
        }
    }
}
