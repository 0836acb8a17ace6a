package dev.outbox.bench;

import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.messaging.publish.OutboundMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code ops/bench.sh}: the side-by-side performance benchmark. Every scenario runs in this one
 * invocation, on the same database, broker, payload and queue, so the ratios compare like with
 * like. See the README's Performance section for what each part measures.
 *
 * <pre>
 * ops/bench.sh [--quick] [--rows N] [--out DIR] [--only throughput,latency,growth,http,backlog]
 *              [--backlog-rows 1000000]
 *              [--scenarios A,B,Bf,N,P,Pf,R,Rf,C] [--processes 1,2,4] [--relay OUTBOX_RELAY_X=value ...]
 *              [--relay-only] [--loads 200,1000,3000] [--latency-runs 5] [--latency-modes notify,poll,cdc]
 * </pre>
 *
 * <p>Throughput scenarios: A broker ceiling, B database ceiling, N naive relay, P plain batch
 * relay, R the relay-worker; {@code f} runs one on a freshly migrated database the planner has
 * no statistics for. {@code --relay-only} is {@code --scenarios R}: for sweeping a relay setting
 * without waiting for the baselines each time.
 */
public final class BenchMain {
    private BenchMain() {}

    /** What one invocation runs; {@code quick} is the CI smoke run: every scenario, tiny. */
    record Options(
            boolean quick,
            int rows,
            Path out,
            Set<String> only,
            List<Integer> processes,
            Map<String, String> relay,
            Set<String> scenarios,
            int[] loads,
            int latencyRuns,
            Set<String> latencyModes,
            Path clusterEnv,
            int backlogRows) {
        boolean runs(String part) {
            return only.isEmpty() || only.contains(part);
        }

        /** One throughput scenario: A, B, Bf, N, P, Pf, R, Rf (f: on a fresh database). */
        boolean scenario(String key) {
            return scenarios.contains(key);
        }
    }

    static final List<String> SCENARIOS = List.of("A", "B", "Bf", "N", "P", "Pf", "R", "Rf", "C");

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Options o = parse(args);
        BenchEnv env = new BenchEnv();
        Report report =
                new Report(o.out(), "Outbox benchmark " + LocalDateTime.now().withNano(0));
        report.text(Machine.describe(env, o));
        if (o.runs("throughput")) {
            throughput(env, report, o);
        }
        if (o.runs("latency")) {
            LatencyRun.section(env, report, o);
        }
        if (o.runs("growth")) {
            ClaimGrowth.section(env, report, o);
        }
        if (o.runs("http")) {
            HttpOverhead.section(env, report, o);
        }
        // a million rows take about 20 minutes: only when asked for, or tiny with --quick so the tool keeps working
        if (o.only().contains("backlog") || o.quick()) {
            BacklogDrain.section(env, report, o);
        }
        if (o.clusterEnv() != null && o.runs("quorum")) {
            QuorumRun.section(env, report, o, o.clusterEnv());
        }
        env.clean();
        System.out.println("results: " + o.out().resolve("results.md").toAbsolutePath());
        System.exit(0);
    }

    static void throughput(BenchEnv env, Report report, Options o) throws Exception {
        List<NewOutboxMessage> events = Backlog.events(o.rows());
        List<Throughput> tried = new ArrayList<>();
        List<RelayDrain.Result> drains = new ArrayList<>();
        if (o.scenario("A")) {
            List<OutboundMessage> messages = BrokerCeiling.messages(events);
            int[][] aConfigs =
                    o.quick() ? new int[][] {{1, 1024}} : new int[][] {{1, 256}, {1, 1024}, {1, 4096}, {4, 1024}};
            for (int[] c : aConfigs) {
                tried.add(progress(BrokerCeiling.run(env, messages, c[0], c[1])));
            }
        }
        int[] bWorkers = o.quick() ? new int[] {1} : new int[] {1, 2, 4};
        if (o.scenario("B")) {
            for (int w : bWorkers) {
                tried.add(progress(DatabaseCeiling.run(env, events, w, 256, false)));
            }
        }
        if (o.scenario("Bf")) {
            tried.add(progress(DatabaseCeiling.run(env, events, bWorkers[bWorkers.length > 1 ? 1 : 0], 256, true)));
        }
        if (o.scenario("N")) {
            tried.add(
                    progress(NaiveRelay.run(env, events, o.quick() ? Duration.ofSeconds(5) : Duration.ofSeconds(30))));
        }
        if (o.scenario("P")) {
            tried.add(progress(PlainRelay.run(env, events, false)));
        }
        if (o.scenario("Pf")) {
            tried.add(progress(PlainRelay.run(env, events, true)));
        }
        if (o.scenario("R")) {
            for (int p : o.processes()) {
                drains.add(drain(env, events, p, o.relay(), false));
            }
        }
        if (o.scenario("Rf")) {
            drains.add(drain(env, events, o.processes().get(0), o.relay(), true));
        }
        if (o.scenario("C")) {
            // CDC mode, one reading process (more would only stand by), beside R from the same run
            RelayDrain.Result c = RelayDrain.run(env, events, 1, o.relay(), false, true);
            progress(c.throughput());
            drains.add(c);
        }
        Throughput a = best(tried, "A");
        Throughput b = best(tried, "B");
        Throughput n = best(tried, "N");
        Throughput plain = best(tried, "P");
        Throughput r = drains.stream()
                .map(RelayDrain.Result::throughput)
                .filter(t -> t.key().startsWith("R") && !t.key().endsWith("fresh"))
                .max(Comparator.comparing(Throughput::perSecond))
                .orElse(null);
        Throughput cdc = drains.stream()
                .map(RelayDrain.Result::throughput)
                .filter(t -> t.key().startsWith("C"))
                .findFirst()
                .orElse(null);
        Throughput rFresh = drains.stream()
                .map(RelayDrain.Result::throughput)
                .filter(t -> t.key().startsWith("R") && t.key().endsWith("fresh"))
                .findFirst()
                .orElse(null);
        List<List<String>> rows = new ArrayList<>();
        for (Throughput t : tried) {
            rows.add(withCpu(
                    Report.row(
                            t.key() + (t == a || t == b || t == plain ? " (best)" : ""),
                            t.what(),
                            t.config(),
                            Long.toString(t.rows()),
                            String.format("%.2f", t.seconds()),
                            Report.num(t.perSecond()),
                            "",
                            "",
                            "",
                            ""),
                    t));
        }
        for (RelayDrain.Result d : drains) {
            Throughput t = d.throughput();
            rows.add(withCpu(
                    Report.row(
                            t.key() + (t == r ? " (best)" : ""),
                            t.what(),
                            t.config(),
                            Long.toString(t.rows()),
                            String.format("%.2f", t.seconds()),
                            Report.num(t.perSecond()),
                            ratio(t, a),
                            ratio(t, b),
                            ratio(t, n),
                            ratio(t, plain)),
                    t));
        }
        report.table(
                "Throughput: rows per second, same payload and queue",
                List.of(
                        "run",
                        "what",
                        "configuration",
                        "rows",
                        "seconds",
                        "rows/s",
                        "R/A",
                        "R/B",
                        "R/N",
                        "R/P",
                        "CPU µs/row: database",
                        "broker",
                        "client",
                        "total"),
                rows);
        List<String> summary = new ArrayList<>();
        if (r != null) {
            int cores = Runtime.getRuntime().availableProcessors();
            double cpuBound = cores * 1e6 / r.cpuTotal();
            summary.add(String.format(
                    "CPU µs/row is CPU time per row moved, by part of the machine (client: the relay"
                            + " processes for R, the benchmark's own publisher or worker for A, B, N, P). The best R needs %s µs"
                            + " of CPU per row (database + broker + relay): with everything on %d cores it cannot exceed"
                            + " %d x 1e6 / %s = %s rows/s, and it reaches %s of that.",
                    Report.num(r.cpuTotal()),
                    cores,
                    cores,
                    Report.num(r.cpuTotal()),
                    Report.num(cpuBound),
                    Report.ratio(r.perSecond(), cpuBound)));
            if (cdc != null) {
                int cores2 = Runtime.getRuntime().availableProcessors();
                summary.add(String.format(
                        "**CDC mode: C / R = %s / %s = %s rows/s; database CPU per row C / R = %s / %s µs = %s**"
                                + " (target: half of R's database work); C reaches %s of its own shared-CPU limit"
                                + " (%d x 1e6 / %s µs).",
                        Report.num(cdc.perSecond()),
                        Report.num(r.perSecond()),
                        Report.ratio(cdc.perSecond(), r.perSecond()),
                        Report.num(cdc.cpuPerRow().get("database")),
                        Report.num(r.cpuPerRow().get("database")),
                        Report.ratio(
                                cdc.cpuPerRow().get("database"), r.cpuPerRow().get("database")),
                        Report.ratio(cdc.perSecond(), cores2 * 1e6 / cdc.cpuTotal()),
                        cores2,
                        Report.num(cdc.cpuTotal())));
            }
            if (rFresh != null) {
                summary.add(String.format(
                        "**Fresh database: R fresh / R = %s / %s = %s** (target >= 0.90).",
                        Report.num(rFresh.perSecond()),
                        Report.num(r.perSecond()),
                        Report.ratio(rFresh.perSecond(), r.perSecond())));
            }
            if (plain != null) {
                summary.add(String.format(
                        "**Plain relay: R / P = %s / %s = %s** (target >= 1.00).",
                        Report.num(r.perSecond()),
                        Report.num(plain.perSecond()),
                        Report.ratio(r.perSecond(), plain.perSecond())));
            }
            if (a != null && b != null) {
                double shared = 1 / (1 / a.perSecond() + 1 / b.perSecond());
                summary.add(String.format(
                        "**Against the ceilings: R/A = %s; R against the shared-CPU limit"
                                + " 1 / (1/A + 1/B) = %s rows/s: %s**; R/B = %s.",
                        Report.ratio(r.perSecond(), a.perSecond()),
                        Report.num(shared),
                        Report.ratio(r.perSecond(), shared),
                        Report.ratio(r.perSecond(), b.perSecond())));
            }
            if (n != null) {
                summary.add(String.format("R/N = %s (the naive relay).", Report.ratio(r.perSecond(), n.perSecond())));
            }
        }
        Throughput bFresh = best(tried, "B fresh");
        if (b != null && bFresh != null) {
            summary.add(String.format(
                    "Database ceiling with statistics B = %s rows/s (database %s µs/row); on a fresh"
                            + " database %s rows/s (%s µs/row).",
                    Report.num(b.perSecond()),
                    Report.num(b.cpuPerRow().get("database")),
                    Report.num(bFresh.perSecond()),
                    Report.num(bFresh.cpuPerRow().get("database"))));
        }
        for (String line : summary) {
            report.text(line);
        }
        List<String> names = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (Throughput t : tried) {
            if (t == a || t == b || t == n || t == plain || t.key().endsWith("fresh")) {
                names.add(t.key() + " " + t.what().replaceAll(" \\(.*", "").replace(", fresh database", ""));
                values.add(t.perSecond());
            }
        }
        for (RelayDrain.Result d : drains) {
            names.add(d.throughput().key() + " relay-worker");
            values.add(d.throughput().perSecond());
        }
        if (!names.isEmpty()) {
            report.barChart(
                    "throughput.png",
                    "Rows per second (" + o.rows() + " rows, same machine, same run)",
                    "rows/s",
                    names,
                    values);
        }
        List<List<String>> mem = new ArrayList<>();
        for (RelayDrain.Result d : drains) {
            mem.add(Report.row(
                    d.throughput().key(),
                    Long.toString(d.throughput().rows()),
                    Report.num(d.peakRssMiB()),
                    Report.num(d.maxSampledRssMiB())));
        }
        if (!mem.isEmpty()) {
            report.table(
                    "Relay memory while draining (each process, heap capped at " + BenchProcess.HEAP + ")",
                    List.of("run", "backlog rows", "peak RSS MiB (VmHWM)", "max sampled RSS MiB"),
                    mem);
        }
    }

    private static RelayDrain.Result drain(
            BenchEnv env, List<NewOutboxMessage> events, int processes, Map<String, String> relay, boolean fresh)
            throws Exception {
        RelayDrain.Result r = RelayDrain.run(env, events, processes, relay, fresh);
        progress(r.throughput());
        return r;
    }

    private static String ratio(Throughput t, Throughput base) {
        return base == null ? "" : Report.ratio(t.perSecond(), base.perSecond());
    }

    private static Throughput progress(Throughput t) {
        System.out.printf(
                "  %-3s %-45s %-55s %,10.0f rows/s  cpu us/row db %.0f broker %.0f relay %.0f bench %.0f%n",
                t.key(),
                t.what(),
                t.config(),
                t.perSecond(),
                t.cpuPerRow().get("database"),
                t.cpuPerRow().get("broker"),
                t.cpuPerRow().get("relay"),
                t.cpuPerRow().get("bench"));
        return t;
    }

    private static List<String> withCpu(List<String> row, Throughput t) {
        boolean relay = t.key().startsWith("R") || t.key().startsWith("C");
        row.add(Report.num(t.cpuPerRow().get("database")));
        row.add(Report.num(t.cpuPerRow().get("broker")));
        row.add(Report.num(t.cpuPerRow().get(relay ? "relay" : "bench")));
        row.add(Report.num(t.cpuPerRow().values().stream()
                .filter(v -> !v.isNaN())
                .mapToDouble(Double::doubleValue)
                .sum()));
        return row;
    }

    private static Throughput best(List<Throughput> all, String key) {
        return all.stream()
                .filter(t -> t.key().equals(key))
                .max(Comparator.comparing(Throughput::perSecond))
                .orElse(null);
    }

    static Options parse(String[] args) {
        boolean quick = false;
        Integer rows = null;
        Path out = null;
        Set<String> only = new LinkedHashSet<>();
        List<Integer> processes = null;
        Map<String, String> relay = new LinkedHashMap<>();
        Set<String> scenarios = new LinkedHashSet<>(SCENARIOS);
        int[] loads = {200, 1_000, 3_000};
        Integer latencyRuns = null;
        Set<String> latencyModes = new LinkedHashSet<>(List.of("notify", "poll", "cdc"));
        Path clusterEnv = null;
        Integer backlogRows = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--relay-only" -> scenarios = new LinkedHashSet<>(List.of("R"));
                case "--scenarios" -> {
                    scenarios = new LinkedHashSet<>(List.of(args[++i].split(",")));
                    if (!SCENARIOS.containsAll(scenarios)) {
                        throw new IllegalArgumentException(
                                "--scenarios takes some of " + SCENARIOS + ", got " + args[i]);
                    }
                }
                case "--latency-runs" -> latencyRuns = Integer.parseInt(args[++i]);
                case "--backlog-rows" -> backlogRows = Integer.parseInt(args[++i]);
                case "--latency-modes" -> latencyModes = new LinkedHashSet<>(List.of(args[++i].split(",")));
                case "--loads" ->
                    loads = java.util.Arrays.stream(args[++i].split(","))
                            .mapToInt(Integer::parseInt)
                            .toArray();
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--cluster-env" -> clusterEnv = Path.of(args[++i]);
                case "--only" -> only.addAll(List.of(args[++i].split(",")));
                case "--processes" ->
                    processes = java.util.Arrays.stream(args[++i].split(","))
                            .map(Integer::valueOf)
                            .toList();
                case "--relay" -> {
                    String[] kv = args[++i].split("=", 2);
                    if (kv.length != 2 || !kv[0].startsWith("OUTBOX_RELAY_")) {
                        throw new IllegalArgumentException("--relay takes OUTBOX_RELAY_NAME=value, got " + args[i]);
                    }
                    relay.put(kv[0], kv[1]);
                }
                default ->
                    throw new IllegalArgumentException("unknown argument " + args[i]
                            + "; usage: ops/bench.sh [--quick] [--rows N] [--out DIR] [--only throughput,latency,growth,http,quorum,backlog]"
                            + " [--backlog-rows 1000000]"
                            + " [--processes 1,2,4] [--relay OUTBOX_RELAY_X=value] [--relay-only]"
                            + " [--scenarios A,B,Bf,N,P,Pf,R,Rf,C] [--loads 200,1000,3000] [--latency-runs 5]"
                            + " [--latency-modes notify,poll,cdc] [--cluster-env /var/tmp/outbox-cluster/cluster.env]");
            }
        }
        if (!Set.of("notify", "poll", "cdc").containsAll(latencyModes)) {
            throw new IllegalArgumentException("--latency-modes takes notify, poll and cdc, not " + latencyModes);
        }
        for (String part : only) {
            if (!Set.of("throughput", "latency", "growth", "http", "quorum", "backlog")
                    .contains(part)) {
                throw new IllegalArgumentException(
                        "--only knows throughput, latency, growth, http, quorum; not " + part);
            }
        }
        if (only.contains("quorum") && clusterEnv == null) {
            throw new IllegalArgumentException("--only quorum needs --cluster-env (the file ops/cluster.sh up writes)");
        }
        if (out == null) {
            out = Path.of(
                    "ops",
                    "bench",
                    "results",
                    LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                            + (quick ? "-quick" : ""));
        }
        return new Options(
                quick,
                rows != null ? rows : quick ? 2_000 : 100_000,
                out,
                only,
                processes != null ? processes : quick ? List.of(1, 2) : List.of(1, 2, 4),
                relay,
                scenarios,
                loads,
                latencyRuns != null ? latencyRuns : quick ? 1 : 5,
                latencyModes,
                clusterEnv,
                backlogRows != null ? backlogRows : quick ? 2_000 : 1_000_000);
    }
}
