package dev.outbox.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outbox.kernel.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Prometheus server (Debian's {@code prometheus} package, 2.x) run as a plain child process for
 * one dashboard run: its own configuration scraping the given jobs every second, its database in a
 * temporary directory that is deleted afterwards, listening on loopback only. Nothing of the
 * package's own service is used or started.
 */
final class Prometheus implements AutoCloseable {
    private final Process process;
    private final Path dir;
    private final URI base;
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private Prometheus(Process process, Path dir, URI base) {
        this.process = process;
        this.dir = dir;
        this.base = base;
    }

    /**
     * Starts {@code binary} scraping each job's {@code host:port} targets every second, and waits
     * until it answers ready.
     */
    static Prometheus start(String binary, int port, Map<String, String> jobs) throws Exception {
        Path dir = Files.createTempDirectory("outbox-prometheus-");
        StringBuilder config =
                new StringBuilder("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n" + "scrape_configs:\n");
        jobs.forEach((job, target) -> config.append("  - job_name: ")
                .append(job)
                .append("\n    static_configs:\n      - targets: ['")
                .append(target)
                .append("']\n"));
        Files.writeString(dir.resolve("prometheus.yml"), config);
        Process process = new ProcessBuilder(
                        binary,
                        "--config.file=" + dir.resolve("prometheus.yml"),
                        "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        Prometheus p = new Prometheus(process, dir, URI.create("http://127.0.0.1:" + port));
        try {
            p.awaitReady(Duration.ofSeconds(60));
        } catch (RuntimeException | InterruptedException e) {
            p.close();
            throw e;
        }
        return p;
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("prometheus exited with " + process.exitValue() + ":\n" + log());
            }
            try {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(base.resolve("/-/ready")).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("prometheus was not ready within " + timeout + ":\n" + log());
    }

    /** The first line of {@code binary --version}, for the picture's caption. */
    static String version(String binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary, "--version")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out.lines().findFirst().orElse("prometheus").trim();
    }

    /** "Prometheus 2.42.0+ds" from a version line such as "prometheus, version 2.42.0+ds (branch: ...)". */
    static String shortVersion(String line) {
        Matcher m = Pattern.compile("version (\\S+)").matcher(line);
        return m.find() ? "Prometheus " + m.group(1) : line;
    }

    /** Waits until an instant query has a sample at least {@code atLeast}, e.g. every target up. */
    void awaitValue(String query, double atLeast, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JsonNode result = api("/api/v1/query?query=" + encode(query)).path("result");
            if (result.size() > 0 && result.get(0).path("value").get(1).asDouble() >= atLeast) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(query + " did not reach " + atLeast + " within " + timeout);
            }
            Thread.sleep(500);
        }
    }

    /** {@code /api/v1/query_range}: the answer's {@code result}, one entry per series. */
    JsonNode queryRange(String query, Instant start, Instant end, Duration step) throws Exception {
        return api("/api/v1/query_range?query=" + encode(query) + "&start=" + start.getEpochSecond() + "&end="
                        + end.getEpochSecond() + "&step=" + step.toSeconds())
                .path("result");
    }

    private JsonNode api(String pathAndQuery) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = Json.mapper().readTree(r.body());
        if (!"success".equals(body.path("status").asText())) {
            throw new IllegalStateException("prometheus refused " + pathAndQuery + ": " + r.body());
        }
        return body.path("data");
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private String log() {
        try {
            return Files.readString(dir.resolve("prometheus.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Stops the server (SIGTERM, then SIGKILL after 30 s) and deletes its database. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + dir + ": " + e.getMessage());
        }
    }
}
