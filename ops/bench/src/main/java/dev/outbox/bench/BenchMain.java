package dev.outbox.bench;

import dev.outbox.messaging.publish.OutboundMessage;
import dev.outbox.persistence.outbox.NewOutboxMessage;
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
 * ops/bench.sh [--quick] [--rows N] [--out DIR] [--only throughput,latency,growth,http]
 *              [--processes 1,2,4] [--relay OUTBOX_RELAY_X=value ...] [--relay-only]
 *              [--loads 200,1000,3000]
 * </pre>
 *
 * <p>{@code --relay-only} runs just the relay drains (R) of the throughput part: for sweeping a
 * relay setting without waiting for the baselines each time.
 *
 * <pre>
 * </pre>
 */
public final class BenchMain {
    private BenchMain() {
    }

    /** What one invocation runs; {@code quick} is the CI smoke run: every scenario, tiny. */
    record Options(boolean quick, int rows, Path out, Set<String> only, List<Integer> processes,
            Map<String, String> relay, boolean relayOnly, int[] loads) {
        boolean runs(String part) {
            return only.isEmpty() || only.contains(part);
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Options o = parse(args);
        BenchEnv env = new BenchEnv();
        Report report = new Report(o.out(), "Outbox benchmark " + LocalDateTime.now().withNano(0));
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
        env.clean();
        System.out.println("results: " + o.out().resolve("results.md").toAbsolutePath());
        System.exit(0);
    }

    static void throughput(BenchEnv env, Report report, Options o) throws Exception {
        List<NewOutboxMessage> events = Backlog.events(o.rows());
        List<OutboundMessage> messages = BrokerCeiling.messages(events);
        List<Throughput> tried = new ArrayList<>();
        if (o.relayOnly()) {
            for (int p : o.processes()) {
                RelayDrain.Result r = RelayDrain.run(env, events, p, o.relay());
                progress(r.throughput());
                report.text(String.format("%s %s: %s rows/s, peak RSS %s MiB", r.throughput().key(),
                        r.throughput().config(), Report.num(r.throughput().perSecond()), Report.num(r.peakRssMiB())));
            }
            return;
        }
        int[][] aConfigs = o.quick() ? new int[][] {{1, 1024}} : new int[][] {{1, 256}, {1, 1024}, {1, 4096}, {4, 1024}};
        for (int[] c : aConfigs) {
            tried.add(progress(BrokerCeiling.run(env, messages, c[0], c[1])));
        }
        int[] bWorkers = o.quick() ? new int[] {1} : new int[] {1, 2, 4};
        for (int w : bWorkers) {
            tried.add(progress(DatabaseCeiling.run(env, events, w, 256)));
        }
        tried.add(progress(NaiveRelay.run(env, events, o.quick() ? Duration.ofSeconds(5) : Duration.ofSeconds(30))));
        List<RelayDrain.Result> drains = new ArrayList<>();
        for (int p : o.processes()) {
            RelayDrain.Result r = RelayDrain.run(env, events, p, o.relay());
            progress(r.throughput());
            drains.add(r);
        }
        Throughput a = best(tried, "A");
        Throughput b = best(tried, "B");
        Throughput n = best(tried, "N");
        Throughput r = drains.stream().map(RelayDrain.Result::throughput).max(Comparator.comparing(Throughput::perSecond))
                .orElseThrow();
        List<List<String>> rows = new ArrayList<>();
        for (Throughput t : tried) {
            rows.add(withCpu(Report.row(t.key() + (t == a || t == b ? " (best)" : ""), t.what(), t.config(),
                    Long.toString(t.rows()), String.format("%.2f", t.seconds()), Report.num(t.perSecond()), "", "", ""),
                    t));
        }
        for (RelayDrain.Result d : drains) {
            Throughput t = d.throughput();
            rows.add(withCpu(Report.row(t.key() + (t == r ? " (best)" : ""), t.what(), t.config(),
                    Long.toString(t.rows()), String.format("%.2f", t.seconds()), Report.num(t.perSecond()),
                    Report.ratio(t.perSecond(), a.perSecond()), Report.ratio(t.perSecond(), b.perSecond()),
                    Report.ratio(t.perSecond(), n.perSecond())), t));
        }
        report.table("Throughput: rows per second, same payload and queue", List.of("run", "what", "configuration",
                "rows", "seconds", "rows/s", "R/A", "R/B", "R/N", "CPU µs/row: database", "broker", "client",
                "total"), rows);
        int cores = Runtime.getRuntime().availableProcessors();
        double cpuBound = cores * 1e6 / r.cpuTotal();
        report.text(String.format("CPU µs/row is CPU time per row moved, by part of the machine (client: the relay"
                + " processes for R, the benchmark's own publisher or worker for A, B, N). The best R needs %s µs"
                + " of CPU per row (database + broker + relay) where A needs %s (broker + publisher): with"
                + " everything on %d cores it cannot exceed %d x 1e6 / %s = %s rows/s, and it reaches %s of that.",
                Report.num(r.cpuTotal()), Report.num(a.cpuTotal()), cores, cores, Report.num(r.cpuTotal()),
                Report.num(cpuBound), Report.ratio(r.perSecond(), cpuBound)));
        report.text(String.format("Best relay R = %s rows/s: **R/A = %s** (target >= 0.85), **R/N = %s** (target >= 7),"
                + " R/B = %s.", Report.num(r.perSecond()), Report.ratio(r.perSecond(), a.perSecond()),
                Report.ratio(r.perSecond(), n.perSecond()), Report.ratio(r.perSecond(), b.perSecond())));
        List<String> names = new ArrayList<>(List.of("A broker ceiling", "B database ceiling", "N naive relay"));
        List<Double> values = new ArrayList<>(List.of(a.perSecond(), b.perSecond(), n.perSecond()));
        for (RelayDrain.Result d : drains) {
            names.add(d.throughput().key() + " relay-worker x" + d.throughput().key().substring(1));
            values.add(d.throughput().perSecond());
        }
        report.barChart("throughput.png", "Rows per second (" + o.rows() + " rows, same machine, same run)", "rows/s",
                names, values);
        List<List<String>> mem = new ArrayList<>();
        for (RelayDrain.Result d : drains) {
            mem.add(Report.row(d.throughput().key(), Long.toString(d.throughput().rows()), Report.num(d.peakRssMiB()),
                    Report.num(d.maxSampledRssMiB())));
        }
        report.table("Relay memory while draining (each process, heap capped at " + BenchProcess.HEAP + ")",
                List.of("run", "backlog rows", "peak RSS MiB (VmHWM)", "max sampled RSS MiB"), mem);
    }

    private static Throughput progress(Throughput t) {
        System.out.printf("  %-3s %-45s %-55s %,10.0f rows/s  cpu us/row db %.0f broker %.0f relay %.0f bench %.0f%n",
                t.key(), t.what(), t.config(), t.perSecond(), t.cpuPerRow().get("database"),
                t.cpuPerRow().get("broker"), t.cpuPerRow().get("relay"), t.cpuPerRow().get("bench"));
        return t;
    }

    private static List<String> withCpu(List<String> row, Throughput t) {
        boolean relay = t.key().startsWith("R");
        row.add(Report.num(t.cpuPerRow().get("database")));
        row.add(Report.num(t.cpuPerRow().get("broker")));
        row.add(Report.num(t.cpuPerRow().get(relay ? "relay" : "bench")));
        row.add(Report.num(t.cpuPerRow().values().stream().filter(v -> !v.isNaN())
                .mapToDouble(Double::doubleValue).sum()));
        return row;
    }

    private static Throughput best(List<Throughput> all, String key) {
        return all.stream().filter(t -> t.key().equals(key)).max(Comparator.comparing(Throughput::perSecond))
                .orElseThrow();
    }

    static Options parse(String[] args) {
        boolean quick = false;
        Integer rows = null;
        Path out = null;
        Set<String> only = new LinkedHashSet<>();
        List<Integer> processes = null;
        Map<String, String> relay = new LinkedHashMap<>();
        boolean relayOnly = false;
        int[] loads = {200, 1_000, 3_000};
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--relay-only" -> relayOnly = true;
                case "--loads" -> loads = java.util.Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt)
                        .toArray();
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--only" -> only.addAll(List.of(args[++i].split(",")));
                case "--processes" -> processes = java.util.Arrays.stream(args[++i].split(",")).map(Integer::valueOf)
                        .toList();
                case "--relay" -> {
                    String[] kv = args[++i].split("=", 2);
                    if (kv.length != 2 || !kv[0].startsWith("OUTBOX_RELAY_")) {
                        throw new IllegalArgumentException("--relay takes OUTBOX_RELAY_NAME=value, got " + args[i]);
                    }
                    relay.put(kv[0], kv[1]);
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: ops/bench.sh [--quick] [--rows N] [--out DIR] [--only throughput,latency,growth,http]"
                        + " [--processes 1,2,4] [--relay OUTBOX_RELAY_X=value] [--relay-only] [--loads 200,1000,3000]");
            }
        }
        for (String part : only) {
            if (!Set.of("throughput", "latency", "growth", "http").contains(part)) {
                throw new IllegalArgumentException("--only knows throughput, latency, growth, http; not " + part);
            }
        }
        if (out == null) {
            out = Path.of("ops", "bench", "results",
                    LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + (quick ? "-quick" : ""));
        }
        return new Options(quick, rows != null ? rows : quick ? 2_000 : 100_000, out, only,
                processes != null ? processes : quick ? List.of(1, 2) : List.of(1, 2, 4), relay,
                relayOnly, loads);
    }
}
