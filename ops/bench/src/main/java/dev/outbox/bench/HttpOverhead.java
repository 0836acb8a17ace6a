package dev.outbox.bench;

import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.otlp.OtlpReceiver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the outbox costs a business write: {@code POST /orders} against the real API process with
 * its outbox insert, and against the same process with the insert switched off
 * ({@link BenchApiMain}), in ABBA order after a discarded warm-up run, so drift hits both alike. Closed loop: {@link #CLIENTS}
 * connections each send the next request when the previous one is answered.
 */
final class HttpOverhead {
    static final int CLIENTS = 16;
    private static final Pattern READY = Pattern.compile("bench api ready on port (\\d+)");
    private static final String BODY = "{\"customerId\":\"bench-customer\",\"currency\":\"EUR\",\"lines\":["
            + "{\"sku\":\"SKU-1\",\"quantity\":2,\"unitPrice\":\"19.99\"},"
            + "{\"sku\":\"SKU-GIFT-WRAP\",\"quantity\":1,\"unitPrice\":\"2.50\"}]}";

    record Result(String variant, long requests, double seconds, Percentiles latency) {
        double perSecond() {
            return requests / seconds;
        }
    }

    private HttpOverhead() {}

    static void section(BenchEnv env, Report report, BenchMain.Options o) throws Exception {
        Duration warmup = o.quick() ? Duration.ofSeconds(1) : Duration.ofSeconds(10);
        Duration measure = o.quick() ? Duration.ofSeconds(2) : Duration.ofSeconds(15);
        // ABBA order cancels a steady drift (this JVM's HTTP client keeps warming up, caches fill);
        // a first, discarded run warms the client before anything counts
        List<String> order = o.quick()
                ? List.of("without-outbox", "with-outbox")
                : List.of("without-outbox", "with-outbox", "with-outbox", "without-outbox");
        if (!o.quick()) {
            run(env, "with-outbox", warmup, measure);
        }
        List<Result> results = new ArrayList<>();
        for (String variant : order) {
            results.add(run(env, variant, warmup, measure));
        }
        report.table(
                "HTTP write overhead: POST /orders, " + CLIENTS + " clients, " + measure.toSeconds()
                        + " s per run after " + warmup.toSeconds() + " s warm-up",
                List.of("API", "requests", "req/s", "p50 ms", "p99 ms", "max ms"),
                rows(results));
        double without = mean(results, "without-outbox", Result::perSecond);
        double with = mean(results, "with-outbox", Result::perSecond);
        double p50Without = mean(results, "without-outbox", r -> r.latency().p50());
        double p50With = mean(results, "with-outbox", r -> r.latency().p50());
        double p99Without = mean(results, "without-outbox", r -> r.latency().p99());
        double p99With = mean(results, "with-outbox", r -> r.latency().p99());
        report.text(String.format(
                "Write overhead of the outbox: throughput without/with **%s**, p50 with/without **%s**,"
                        + " p99 with/without %s (target <= 1.15).",
                Report.ratio(without, with), Report.ratio(p50With, p50Without), Report.ratio(p99With, p99Without)));
        notifyCost(env, report, o);
        tracingCost(env, report, o, warmup, measure);
    }

    /**
     * What tracing costs a write: the API with its outbox, tracing off and on (every request
     * sampled: a server span, two transaction spans and five statement spans, exported over OTLP to
     * a receiver in this JVM), in ABBA order after a discarded warm-up.
     */
    static void tracingCost(BenchEnv env, Report report, BenchMain.Options o, Duration warmup, Duration measure)
            throws Exception {
        // the collector decodes nothing: decoding is a collector's cost, and here it would share the cores
        try (OtlpReceiver otlp = OtlpReceiver.discarding()) {
            Map<String, String> on = Map.of(
                    "OTEL_EXPORTER_OTLP_ENDPOINT", otlp.endpoint(), "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
            List<String> order = o.quick()
                    ? List.of("tracing off", "tracing on")
                    : List.of("tracing off", "tracing on", "tracing on", "tracing off");
            if (!o.quick()) {
                run(env, "with-outbox", "tracing on", on, warmup, measure);
            }
            List<Result> results = new ArrayList<>();
            for (String label : order) {
                results.add(
                        run(env, "with-outbox", label, label.equals("tracing on") ? on : Map.of(), warmup, measure));
            }
            report.table(
                    "Tracing overhead: POST /orders with the outbox, " + CLIENTS + " clients, every request traced",
                    List.of("API", "requests", "req/s", "p50 ms", "p99 ms", "max ms"),
                    rows(results));
            report.text(String.format(
                    "Write overhead of tracing: throughput off/on **%s**, p50 on/off **%s**, p99 on/off %s;"
                            + " %,d OTLP export requests, %,.1f MiB, received.",
                    Report.ratio(
                            mean(results, "tracing off", Result::perSecond),
                            mean(results, "tracing on", Result::perSecond)),
                    Report.ratio(
                            mean(results, "tracing on", r -> r.latency().p50()),
                            mean(results, "tracing off", r -> r.latency().p50())),
                    Report.ratio(
                            mean(results, "tracing on", r -> r.latency().p99()),
                            mean(results, "tracing off", r -> r.latency().p99())),
                    otlp.requests(),
                    otlp.bytes() / 1048576.0));
        }
    }

    /**
     * What the notification costs the writers, without HTTP in the way: PostgreSQL serialises the
     * commits of transactions that notify (a database-wide lock held until the commit is
     * flushed), so it shows at high commit rates. Each transaction inserts one outbox row.
     */
    static void notifyCost(BenchEnv env, Report report, BenchMain.Options o) throws Exception {
        Duration measure = o.quick() ? Duration.ofSeconds(1) : Duration.ofSeconds(8);
        List<List<String>> rows = new ArrayList<>();
        for (int writers : new int[] {4, 16}) {
            Result off = commits(env, writers, measure, false, false);
            Result busy = commits(env, writers, measure, true, false);
            Result waiting = commits(env, writers, measure, true, true);
            rows.add(Report.row(
                    Integer.toString(writers),
                    Report.num(off.perSecond()),
                    Report.num(busy.perSecond()),
                    Report.num(waiting.perSecond()),
                    Report.ratio(off.perSecond(), waiting.perSecond()),
                    Report.num(off.latency().p99()),
                    Report.num(busy.latency().p99()),
                    Report.num(waiting.latency().p99())));
        }
        report.table(
                "What NOTIFY costs writers: one-row outbox transactions, " + measure.toSeconds() + " s each",
                List.of(
                        "writers",
                        "commits/s, no trigger",
                        "trigger, no relay waiting",
                        "trigger, a relay waiting",
                        "no trigger / relay waiting",
                        "p99 ms, no trigger",
                        "no relay waiting",
                        "relay waiting"),
                rows);
        report.text("PostgreSQL serialises the commits of transactions that notify. Since migration V6 a writer"
                + " notifies only while a relay waits for work (it has caught up); a busy relay does not need"
                + " the hint, so under load the writers do not pay for it.");
    }

    static Result commits(BenchEnv env, int writers, Duration measure, boolean trigger, boolean relayWaiting)
            throws Exception {
        env.clean();
        env.notifyTrigger(trigger);
        if (relayWaiting) {
            env.db.update("INSERT INTO outbox_relay_waiters (relay_id) VALUES ('bench-waiting-relay')");
        }
        try {
            List<dev.outbox.jdbc.NewOutboxMessage> events = Backlog.placed((int) (12_000 * measure.toMillis() / 1000));
            java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
            long end = System.nanoTime() + measure.toNanos();
            long[][] latencies = new long[writers][events.size()];
            int[] counts = new int[writers];
            double seconds = Parallel.run("bench-writer", writers, me -> {
                try (java.sql.Connection c = env.connect();
                        java.sql.PreparedStatement insert = c.prepareStatement(LatencyRun.INSERT)) {
                    for (int k = next.getAndIncrement();
                            k < events.size() && System.nanoTime() < end;
                            k = next.getAndIncrement()) {
                        long t0 = System.nanoTime();
                        LatencyRun.bind(insert, events.get(k));
                        insert.executeUpdate();
                        c.commit();
                        latencies[me][counts[me]++] = System.nanoTime() - t0;
                    }
                }
            });
            long[] all = java.util.stream.IntStream.range(0, writers)
                    .mapToObj(w -> java.util.Arrays.copyOf(latencies[w], counts[w]))
                    .flatMapToLong(java.util.Arrays::stream)
                    .toArray();
            String variant = !trigger ? "no trigger" : relayWaiting ? "relay waiting" : "no relay waiting";
            System.out.printf("  commits %2d writers, %-16s %,8.0f/s%n", writers, variant, all.length / seconds);
            return new Result(variant, all.length, seconds, Percentiles.ofNanos(all));
        } finally {
            env.notifyTrigger(true);
        }
    }

    private static List<List<String>> rows(List<Result> results) {
        List<List<String>> rows = new ArrayList<>();
        for (Result r : results) {
            rows.add(Report.row(
                    r.variant(),
                    Long.toString(r.requests()),
                    Report.num(r.perSecond()),
                    Report.num(r.latency().p50()),
                    Report.num(r.latency().p99()),
                    Report.num(r.latency().max())));
        }
        return rows;
    }

    private static double mean(List<Result> results, String variant, java.util.function.ToDoubleFunction<Result> f) {
        return results.stream()
                .filter(r -> r.variant().equals(variant))
                .mapToDouble(f)
                .average()
                .orElseThrow();
    }

    static Result run(BenchEnv env, String variant, Duration warmup, Duration measure) throws Exception {
        return run(env, variant, variant, Map.of(), warmup, measure);
    }

    /** One run of the API started as {@code variant} with {@code extraEnv}, reported as {@code label}. */
    static Result run(
            BenchEnv env, String variant, String label, Map<String, String> extraEnv, Duration warmup, Duration measure)
            throws Exception {
        env.clean();
        Map<String, String> apiEnv = new LinkedHashMap<>(env.processEnv());
        apiEnv.putAll(extraEnv);
        apiEnv.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        apiEnv.put("OUTBOX_HTTP_PORT", "0");
        apiEnv.put("OUTBOX_DB_POOL_SIZE", Integer.toString(CLIENTS));
        try (JavaProcess api = BenchProcess.start("api-" + variant, BenchApiMain.class.getName(), apiEnv, variant)) {
            api.awaitOutput(READY, Duration.ofSeconds(60));
            Matcher m = READY.matcher(api.output());
            if (!m.find()) {
                throw new IllegalStateException("no port in the API's output");
            }
            URI orders = URI.create("http://127.0.0.1:" + m.group(1) + "/orders");
            HttpClient client = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
            long start = System.nanoTime();
            long measureFrom = start + warmup.toNanos();
            long end = measureFrom + measure.toNanos();
            long[][] latencies = new long[CLIENTS][];
            int[] counts = new int[CLIENTS];
            HttpRequest request = HttpRequest.newBuilder(orders)
                    .timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(BODY))
                    .build();
            Parallel.run("bench-http", CLIENTS, me -> {
                latencies[me] = new long[1 << 16];
                for (long now = System.nanoTime(); now < end; now = System.nanoTime()) {
                    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                    long done = System.nanoTime();
                    if (response.statusCode() != 201) {
                        throw new IllegalStateException(
                                "POST /orders answered " + response.statusCode() + ": " + response.body());
                    }
                    if (now >= measureFrom && done <= end) {
                        if (counts[me] == latencies[me].length) {
                            latencies[me] = java.util.Arrays.copyOf(latencies[me], counts[me] * 2);
                        }
                        latencies[me][counts[me]++] = done - now;
                    }
                }
            });
            long[] all = java.util.stream.IntStream.range(0, CLIENTS)
                    .mapToObj(c -> java.util.Arrays.copyOf(latencies[c], counts[c]))
                    .flatMapToLong(java.util.Arrays::stream)
                    .toArray();
            long outbox = env.count("true");
            long orderRows = env.db.count("SELECT count(*) FROM orders");
            if (variant.equals("with-outbox") ? outbox != orderRows : outbox != 0) {
                throw new IllegalStateException(variant + ": " + orderRows + " orders but " + outbox + " outbox rows");
            }
            if (api.terminate(Duration.ofSeconds(30)) != 0) {
                throw new IllegalStateException("API did not exit cleanly:\n" + api.output());
            }
            Result r = new Result(label, all.length, measure.toNanos() / 1e9, Percentiles.ofNanos(all));
            System.out.printf(
                    "  http %-15s %,8.0f req/s p50 %.1f ms p99 %.1f ms%n",
                    label, r.perSecond(), r.latency().p50(), r.latency().p99());
            return r;
        }
    }
}
