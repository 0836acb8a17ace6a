package dev.outbox.config;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The small HTTP port of a worker process (the relay, the ledger consumer): {@code /metrics} in
 * Prometheus text format, {@code /health/live} (the process's threads are running) and
 * {@code /health/ready} (its database and broker are reachable). The JDK's own HTTP server: a
 * worker needs no web framework for three GETs.
 */
public final class ProcessEndpoint implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;

    private ProcessEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    public static ProcessEndpoint start(
            String host, int port, PrometheusMeterRegistry registry, BooleanSupplier live, Supplier<HealthReport> ready)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "worker-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext(
                "/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.createContext("/health/live", ex -> {
            boolean up = live.getAsBoolean();
            respond(ex, up ? 200 : 503, "application/json", "{\"status\":\"" + (up ? "UP" : "DOWN") + "\"}");
        });
        server.createContext("/health/ready", ex -> {
            HealthReport report = ready.get();
            respond(ex, report.up() ? 200 : 503, "application/json", report.toJson());
        });
        server.start();
        return new ProcessEndpoint(server, executor);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange ex, int status, String contentType, String body) throws IOException {
        try (ex) {
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                ex.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", contentType);
            ex.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
