package dev.outbox.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.outbox.kernel.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code ops/dashboard.sh}: the Grafana dashboard of {@code ops/alerts} drawn over a real run. The
 * API, a relay and the ledger run as processes, a Prometheus server scrapes them every second,
 * {@link DashboardLoad} drives a few minutes of orders and faults, and then every panel's own
 * query (Grafana's interval variables replaced by fixed values) is asked of Prometheus over the
 * run and drawn in the dashboard's layout ({@link DashboardPicture}). What Prometheus answered is
 * kept beside the picture, so {@code --redraw} draws it again without another run.
 *
 * <pre>
 * ops/dashboard.sh [--quick] [--out DIR] [--png FILE] [--prometheus /usr/bin/prometheus] [--redraw DIR]
 * </pre>
 */
public final class DashboardMain {
    static final Path DASHBOARD = Path.of("ops/alerts/outbox-dashboard.json");
    /** What Grafana would pick for a 1 s scrape and a picture a few minutes wide, rounded up to smooth it. */
    static final String RATE_INTERVAL = "15s";

    static final Duration STEP = Duration.ofSeconds(2);

    private record Options(boolean quick, Path out, Path png, String prometheus, Path redraw) {}

    private DashboardMain() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Options o = parse(args);
        JsonNode dashboard = Json.mapper().readTree(DASHBOARD.toFile());
        if (o.redraw() != null) {
            draw(
                    dashboard,
                    Json.mapper().readTree(o.redraw().resolve("data.json").toFile()),
                    o.png());
            System.exit(0);
        }
        Files.createDirectories(o.out());
        String version = Prometheus.version(o.prometheus());
        BenchEnv env = new BenchEnv();
        double scale = o.quick() ? 0.2 : 1;
        int rate = o.quick() ? 20 : 30;
        ObjectNode data = Json.mapper().createObjectNode();
        try (DashboardLoad load = new DashboardLoad(env)) {
            load.startProcesses();
            try (Prometheus prometheus =
                    Prometheus.start(o.prometheus(), DashboardLoad.freePort(), load.scrapeTargets())) {
                prometheus.awaitValue("count(up == 1)", 3, Duration.ofSeconds(60));
                Instant start = Instant.now();
                List<DashboardPicture.Phase> phases = load.run(System.nanoTime(), scale, rate);
                Instant end = Instant.now();
                System.out.printf(
                        "run: %d s, %,d orders placed, %,d requests refused%n",
                        Duration.between(start, end).toSeconds(), load.ordersPlaced(), load.ordersRefused());
                ObjectNode results = data.putObject("results");
                for (JsonNode panel : dashboard.path("panels")) {
                    for (JsonNode target : panel.path("targets")) {
                        results.set(
                                panel.path("id").asInt() + "/"
                                        + target.path("refId").asText(),
                                prometheus.queryRange(expr(target), start, end, STEP));
                    }
                }
                data.put("start", start.getEpochSecond());
                data.put("seconds", Duration.between(start, end).toMillis() / 1000.0);
                data.put("prometheus", version);
                data.put("rate", rate);
                data.put("ordersPlaced", load.ordersPlaced());
                ArrayNode phaseNodes = data.putArray("phases");
                for (DashboardPicture.Phase p : phases) {
                    phaseNodes
                            .addObject()
                            .put("letter", p.letter())
                            .put("from", p.fromSeconds())
                            .put("to", p.toSeconds())
                            .put("what", p.what());
                }
            }
        }
        Files.writeString(o.out().resolve("data.json"), Json.mapper().writeValueAsString(data));
        draw(dashboard, data, o.png());
        env.clean();
        System.out.println("picture: " + o.png().toAbsolutePath() + "\nwhat Prometheus answered: "
                + o.out().resolve("data.json").toAbsolutePath());
        System.exit(0);
    }

    private static void draw(JsonNode dashboard, JsonNode data, Path png) throws Exception {
        Map<String, JsonNode> results = new LinkedHashMap<>();
        data.path("results").fields().forEachRemaining(e -> results.put(e.getKey(), e.getValue()));
        List<DashboardPicture.Phase> phases = new ArrayList<>();
        StringBuilder events = new StringBuilder();
        for (JsonNode p : data.path("phases")) {
            phases.add(new DashboardPicture.Phase(
                    p.path("letter").asText(),
                    p.path("from").asDouble(),
                    p.path("to").asDouble(),
                    p.path("what").asText()));
            events.append(events.length() == 0 ? "" : "   ")
                    .append(p.path("letter").asText())
                    .append(' ')
                    .append(clock(p.path("from").asDouble()))
                    .append(
                            p.path("to").asDouble() > p.path("from").asDouble()
                                    ? "-" + clock(p.path("to").asDouble())
                                    : "")
                    .append(": ")
                    .append(p.path("what").asText());
        }
        long start = data.path("start").asLong();
        String when = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
                .format(LocalDateTime.ofEpochSecond(start, 0, ZoneOffset.UTC));
        List<String> caption = List.of(
                String.format(
                        Locale.ROOT,
                        "Each panel's own query, answered by %s (scrape 1 s, $__rate_interval = %s, step %d s), over"
                                + " a %.1f-minute run on %s UTC (ops/dashboard.sh): the API, a relay and the ledger as"
                                + " processes, %d orders/s over HTTP, every second one captured.",
                        Prometheus.shortVersion(data.path("prometheus").asText()),
                        RATE_INTERVAL,
                        STEP.toSeconds(),
                        data.path("seconds").asDouble() / 60,
                        when,
                        data.path("rate").asInt()),
                events.toString());
        Files.createDirectories(png.toAbsolutePath().getParent());
        DashboardPicture.draw(dashboard, results, start, data.path("seconds").asDouble(), phases, caption, png);
    }

    private static String clock(double seconds) {
        return String.format(Locale.ROOT, "%d:%02d", (int) seconds / 60, (int) seconds % 60);
    }

    /** A panel's query as Grafana would send it, its interval variables replaced by fixed values. */
    static String expr(JsonNode target) {
        return target.path("expr")
                .asText()
                .replace("${__rate_interval}", RATE_INTERVAL)
                .replace("$__rate_interval", RATE_INTERVAL)
                .replace("$__interval", STEP.toSeconds() + "s");
    }

    private static Options parse(String[] args) {
        boolean quick = false;
        Path out = null;
        Path png = null;
        String prometheus = "prometheus";
        Path redraw = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--out" -> out = Path.of(args[++i]);
                case "--png" -> png = Path.of(args[++i]);
                case "--prometheus" -> prometheus = args[++i];
                case "--redraw" -> redraw = Path.of(args[++i]);
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + "; usage: ops/dashboard.sh [--quick] [--out DIR] [--png FILE] [--prometheus PATH]"
                            + " [--redraw DIR]");
            }
        }
        if (out == null) {
            out = redraw != null
                    ? redraw
                    : Path.of(
                            "ops/bench/results",
                            "dashboard-"
                                    + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                                            .format(LocalDateTime.now()));
        }
        return new Options(quick, out, png == null ? out.resolve("dashboard.png") : png, prometheus, redraw);
    }
}
