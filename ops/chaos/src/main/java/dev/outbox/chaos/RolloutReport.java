package dev.outbox.chaos;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The rollout test's report: {@code report.md} and {@code rollout.png} in the out folder, also printed. */
final class RolloutReport {
    static final String CHART = "rollout.png";

    private RolloutReport() {}

    /** The machine's load average over 1, 5 and 15 minutes, as {@code uptime} prints it. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** Writes the report and the chart; returns the exit code: 0 when every check held, else 1. */
    static int write(RolloutRun run, List<Invariants.Check> checks, Path out) throws IOException {
        chart(run, out.resolve(CHART));
        String md = markdown(run, checks);
        Files.writeString(out.resolve("report.md"), md, StandardCharsets.UTF_8);
        System.out.println();
        System.out.println(md);
        long violations =
                checks.stream().mapToLong(Invariants.Check::violations).sum();
        System.out.println("[rollout] report: " + out.resolve("report.md").toAbsolutePath() + "; "
                + (violations == 0 ? "every check held" : violations + " violation(s)"));
        return violations == 0 ? 0 : 1;
    }

    static String markdown(RolloutRun run, List<Invariants.Check> checks) {
        RolloutOptions o = run.options();
        StringBuilder md = new StringBuilder("# Rollout test\n\n");
        md.append("`ops/rollout.sh ").append(String.join(" ", o.args())).append("`: ");
        md.append(String.format(
                Locale.ROOT,
                "%d relays started at once on a backlog of %,d rows; %d of them SIGTERMed at once mid-drain and %d"
                        + " replacements started; grace period %d s.%n%n",
                o.relays(),
                o.rows(),
                o.terminate(),
                o.terminate(),
                o.grace().toSeconds()));
        md.append(run.environment()).append("  \n");
        md.append(run.machine()).append("  \n");
        md.append("Load average (1, 5, 15 min) before: ")
                .append(run.loadBefore())
                .append("; after: ")
                .append(run.loadAfter())
                .append(".\n\n");
        md.append("Relay settings: the relay's defaults (migrations at start, liveness, LISTEN, 1 publisher,"
                        + " shutdown timeout 10 s) but `OUTBOX_DB_POOL_SIZE=")
                .append(o.poolSize())
                .append("` (the relay Deployment's)");
        o.relayEnv()
                .forEach((k, v) ->
                        md.append(", `").append(k).append('=').append(v).append('`'));
        md.append(String.format(
                Locale.ROOT,
                ". Bounds per relay: PostgreSQL %d connections (max(min(3, pool) + Flyway's 2 while it starts,"
                        + " pool + liveness + LISTEN once it runs)), 1 broker connection, %d channels.%n%n",
                o.databaseBound(),
                o.channelBound()));

        timeline(md, run);
        connections(md, run);
        terminated(md, run);
        rows(md, run);
        md.append("## Checks\n\n");
        ChaosReport.invariants(md, checks);
        md.append("\n![Rows delivered, and the relays' connections, over the run](")
                .append(CHART)
                .append(")\n");
        return md.toString();
    }

    private static void timeline(StringBuilder md, RolloutRun run) {
        RolloutOptions o = run.options();
        double allRunning =
                run.firstWave().stream().mapToDouble(r -> r.runningAt).max().orElse(-1);
        double replacementsRunning = run.inRole(RolloutRelay.Role.REPLACEMENT).stream()
                .mapToDouble(r -> r.runningAt)
                .max()
                .orElse(-1);
        md.append("## Timeline\n\n| | s |\n|---|---|\n");
        row(md, "backlog written (COPY, one transaction, analyzed)", "took " + secs(run.writeSeconds()));
        row(md, o.relays() + " relays started at once", secs(run.launchedAt()));
        row(md, "first message delivered", secs(run.firstDeliveryAt()));
        row(md, "all " + o.relays() + " running (their own log line)", secs(allRunning));
        row(
                md,
                String.format(
                        Locale.ROOT,
                        "SIGTERM to %d relays (%.1f%% of the backlog delivered); %d replacements started",
                        o.terminate(),
                        run.deliveredAtSigterm() * 100,
                        o.terminate()),
                secs(run.sigtermAt()));
        row(md, "replacements running", secs(replacementsRunning));
        row(md, "last row delivered", run.drainedAt() < 0 ? "NOT drained" : secs(run.drainedAt()));
        md.append('\n');
    }

    private static void connections(StringBuilder md, RolloutRun run) {
        RolloutOptions o = run.options();
        md.append("## Connections\n\n");
        md.append("Peaks per relay, sampled every 100 ms: PostgreSQL and broker connections by the kernel's sockets of"
                + " each process, its backends by `application_name` in `pg_stat_activity` at that peak (tied to the"
                + " process by client port), channels as the broker counts them (`rabbitmqctl list_connections`,"
                + " about once a second");
        md.append(run.brokerSampled() ? ")" : "; not sampled: no rabbitmqctl)");
        md.append(".\n\n| relay | role | PostgreSQL peak (bound ")
                .append(o.databaseBound())
                .append(") | its backends then | broker connections (bound 1) | channels (bound ")
                .append(o.channelBound())
                .append(") | connects logged |\n|---|---|---|---|---|---|---|\n");
        for (RolloutRelay r : run.relays()) {
            relayCells(md, r)
                    .append(r.peakDatabase)
                    .append(" | ")
                    .append(r.peakDatabaseByName.entrySet().stream()
                            .map(e -> e.getKey() + " " + e.getValue())
                            .collect(Collectors.joining(", ")))
                    .append(" | ")
                    .append(r.peakBroker)
                    .append(r.peakBrokerCounted < 0 ? "" : " (broker's count: " + r.peakBrokerCounted + ")")
                    .append(" | ")
                    .append(r.peakChannels < 0 ? "n/a" : Integer.toString(r.peakChannels))
                    .append(" | ")
                    .append(r.brokerConnectsLogged)
                    .append(" |\n");
        }
        md.append(String.format(
                Locale.ROOT,
                "%nTogether: at most **%d** relay backends at once (bound: %d per live relay; at most %d relay"
                        + " processes were alive at once, %d); **%d** while the %d started, against %d × %d = %d. At"
                        + " most %d broker connections of relays at once. The whole server peaked at %d client"
                        + " backends (other work included) of the %d it accepts. %d sessions opened in the run's"
                        + " database (allowance without a retry: %d). %d samples (%s).%n%nWith every pool full, the %d relay"
                        + " processes alive at once would need %d connections%s.%n%n",
                run.peakRelayBackends(),
                o.databaseBound(),
                run.peakLiveRelays(),
                run.peakLiveRelays() * o.databaseBound(),
                run.startPeak(),
                o.relays(),
                o.relays(),
                o.databaseBound(),
                o.relays() * o.databaseBound(),
                run.peakBrokerConnections(),
                run.peakServerBackends(),
                run.maxConnections(),
                run.sessionsOpened(),
                run.sessionAllowance(),
                run.samples().size(),
                run.watchFailures(),
                run.peakLiveRelays(),
                run.peakLiveRelays() * o.databaseBound(),
                run.peakLiveRelays() * o.databaseBound() > run.maxConnections()
                        ? ": MORE than the " + run.maxConnections() + " this server accepts, before any other client"
                        : ", within the " + run.maxConnections() + " this server accepts"));
    }

    private static void terminated(StringBuilder md, RolloutRun run) {
        md.append("## The relays SIGTERMed mid-drain\n\n");
        md.append("| relay | SIGTERM → exit (grace ")
                .append(run.options().grace().toSeconds())
                .append(" s) | its own log: SIGTERM received → stopped cleanly | exit code | claimed | published |"
                        + " released | failed | unconfirmed at shutdown |\n|---|---|---|---|---|---|---|---|---|\n");
        for (RolloutRelay r : run.inRole(RolloutRelay.Role.TERMINATED)) {
            md.append("| ")
                    .append(r.id)
                    .append(" | ")
                    .append(r.killedAtGrace ? "SIGKILLed at the grace" : secs(r.drainSeconds()))
                    .append(" | ")
                    .append(r.logSigtermToStopped < 0 ? "n/a" : secs(r.logSigtermToStopped))
                    .append(" | ")
                    .append(r.exitCode)
                    .append(" | ");
            stopCells(md, r);
            md.append(" | ").append(r.unknownAtShutdown).append(" |\n");
        }
        md.append('\n');
    }

    private static void rows(StringBuilder md, RolloutRun run) {
        RolloutOptions o = run.options();
        md.append("## Rows\n\n");
        double span = run.drainedAt() - run.launchedAt();
        double delivering = run.drainedAt() - run.firstDeliveryAt();
        md.append(String.format(
                Locale.ROOT,
                "%,d rows: %,d delivered to the counting queue, **%d lost**; **%d duplicates** (extra copies, of %d"
                        + " ids; outcomes the relays left unknown: %d, of them %d rows given back by peers); %d"
                        + " redeliveries of unacked copies, %d foreign messages. Outbox at the end: %s.%n%n",
                o.rows(),
                run.delivered(),
                run.missing().size(),
                run.extraCopies(),
                run.duplicatedIds(),
                run.unknownOutcomes(),
                run.givenBack(),
                run.redeliveries(),
                run.foreign(),
                run.statuses()));
        if (run.drainedAt() >= 0) {
            md.append(String.format(
                    Locale.ROOT,
                    "Throughput: %,.0f rows/s from the relays' start to the last row delivered (%.1f s, JVM starts"
                            + " included), %,.0f rows/s from the first delivery to the last (%.1f s).%n%n",
                    o.rows() / span,
                    span,
                    o.rows() / delivering,
                    delivering));
        }
        md.append("| relay | role | running after s | claimed | published | released | failed |\n"
                + "|---|---|---|---|---|---|---|\n");
        for (RolloutRelay r : run.relays()) {
            relayCells(md, r)
                    .append(r.runningAt < 0 ? "never" : secs(r.runningAt - r.launchedAt))
                    .append(" | ");
            stopCells(md, r);
            md.append(" |\n");
        }
        md.append('\n');
    }

    /** A table row's first two cells: the relay and its role. */
    private static StringBuilder relayCells(StringBuilder md, RolloutRelay r) {
        return md.append("| ")
                .append(r.id)
                .append(" | ")
                .append(r.role.name().toLowerCase(Locale.ROOT))
                .append(" | ");
    }

    private static void stopCells(StringBuilder md, RolloutRelay r) {
        if (r.stop == null) {
            md.append("n/a | n/a | n/a | n/a");
        } else {
            md.append(String.format(
                    Locale.ROOT,
                    "%,d | %,d | %,d | %,d",
                    r.stop.claimed(),
                    r.stop.published(),
                    r.stop.released(),
                    r.stop.failed()));
        }
    }

    /** Two plots over the run's time: rows delivered; the relays' connections beside their bound. */
    private static void chart(RolloutRun run, Path file) throws IOException {
        XYSeries delivered = new XYSeries("rows delivered (distinct ids)");
        XYSeries backends = new XYSeries("relay backends (pg_stat_activity)");
        XYSeries bound = new XYSeries("bound: live relays × per-relay bound");
        XYSeries broker = new XYSeries("relay broker connections");
        XYSeries live = new XYSeries("relay processes alive");
        for (ConnectionWatch.Sample s : run.samples()) {
            delivered.add(s.at(), s.delivered());
            backends.add(s.at(), s.relayBackends());
            bound.add(s.at(), s.bound());
            broker.add(s.at(), s.brokerConnections());
            live.add(s.at(), s.liveRelays());
        }
        XYPlot rows = new XYPlot(
                new XYSeriesCollection(delivered),
                null,
                new NumberAxis("rows"),
                new XYLineAndShapeRenderer(true, false));
        XYSeriesCollection conns = new XYSeriesCollection();
        conns.addSeries(backends);
        conns.addSeries(bound);
        conns.addSeries(broker);
        conns.addSeries(live);
        XYPlot connections = new XYPlot(conns, null, new NumberAxis("connections, processes"), new XYStepRenderer());
        NumberAxis time = new NumberAxis("seconds since the test started");
        // from the relays' start, where the samples start: the set-up before it is not the rollout
        time.setAutoRangeIncludesZero(false);
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
        plot.add(rows, 1);
        plot.add(connections, 2);
        for (XYPlot p : List.of(rows, connections)) {
            p.setBackgroundPaint(Color.WHITE);
            p.setRangeGridlinePaint(Color.LIGHT_GRAY);
            p.setDomainGridlinePaint(Color.LIGHT_GRAY);
            ValueMarker sigterm = new ValueMarker(run.sigtermAt(), new Color(0xc53030), new BasicStroke(1.5f));
            sigterm.setLabel(p == rows ? "SIGTERM ×" + run.options().terminate() : null);
            p.addDomainMarker(sigterm);
        }
        connections.getRenderer().setSeriesPaint(0, new Color(0x2b6cb0));
        connections.getRenderer().setSeriesPaint(1, new Color(0xc53030));
        connections.getRenderer().setSeriesPaint(2, new Color(0x38a169));
        connections.getRenderer().setSeriesPaint(3, new Color(0x718096));
        rows.getRenderer().setSeriesPaint(0, new Color(0xdd6b20));
        JFreeChart chart = new JFreeChart(
                "Rollout: " + run.options().relays() + " relays, "
                        + run.options().terminate() + " replaced mid-drain",
                JFreeChart.DEFAULT_TITLE_FONT,
                plot,
                true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 1000, 700);
    }

    private static void row(StringBuilder md, String what, String value) {
        md.append("| ").append(what).append(" | ").append(value).append(" |\n");
    }

    private static String secs(double s) {
        return s < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", s);
    }
}
