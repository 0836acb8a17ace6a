package dev.outbox.chaos;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The soak's Markdown report: what ran, what was injected, what it cost, and each invariant. */
final class ChaosReport {
    private final ChaosOptions o;
    private final ChaosEnv env;
    private final FaultPlan plan;
    private final Workload load;
    private final Faults faults;
    private final Fleet fleet;
    private final Observer observer;
    private final List<Invariants.Check> checks;
    private final Map<String, Integer> exits;
    private final long[] consumerTotals;
    private final double loadSeconds;
    private final double quietSeconds;
    private final double totalSeconds;
    private final double loadStart;
    private final double faultsEnd;
    private final double loadOffset;
    private final GeneratedLoad generated;
    private final dev.outbox.testkit.rows.PublicationAudit.Verdict generatedVerdict;

    ChaosReport(
            GeneratedLoad generated,
            dev.outbox.testkit.rows.PublicationAudit.Verdict generatedVerdict,
            ChaosOptions o,
            ChaosEnv env,
            FaultPlan plan,
            Workload load,
            Faults faults,
            Fleet fleet,
            Observer observer,
            List<Invariants.Check> checks,
            Map<String, Integer> exits,
            long[] consumerTotals,
            double loadSeconds,
            double quietSeconds,
            double totalSeconds,
            double loadStart,
            double faultsEnd,
            double loadOffset) {
        this.o = o;
        this.env = env;
        this.plan = plan;
        this.load = load;
        this.faults = faults;
        this.fleet = fleet;
        this.observer = observer;
        this.checks = checks;
        this.exits = exits;
        this.consumerTotals = consumerTotals;
        this.loadSeconds = loadSeconds;
        this.quietSeconds = quietSeconds;
        this.totalSeconds = totalSeconds;
        this.loadStart = loadStart;
        this.faultsEnd = faultsEnd;
        this.loadOffset = loadOffset;
        this.generated = generated;
        this.generatedVerdict = generatedVerdict;
    }

    String markdown() {
        StringBuilder md = new StringBuilder();
        long violations =
                checks.stream().mapToLong(Invariants.Check::violations).sum();
        md.append("# Chaos soak, seed ")
                .append(o.seed())
                .append(o.shortRun() ? " (short)" : "")
                .append("\n\n");
        md.append("`ops/chaos.sh ")
                .append(String.join(" ", ChaosMain.replayArgs(o)))
                .append("` on ")
                .append(LocalDateTime.now().withNano(0))
                .append(", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores. ")
                .append(env.description)
                .append(".\n\n");
        md.append("2 API, 2 relay and 2 ledger consumer processes (the relays reach the broker through a TCP proxy"
                        + (o.partitions()
                                ? "; each process in a network namespace of its own, reaching PostgreSQL and the"
                                        + " broker over links a partition black-holes"
                                : "")
                        + "), ")
                .append(o.clients())
                .append(" HTTP clients. Relay settings: ")
                .append(o.relaySettings().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(", ")))
                .append(String.format(
                        ". Load and faults %.0f s, quiet %s, whole run %.0f s.%n%n",
                        loadSeconds,
                        quietSeconds >= 0
                                ? String.format("%.1f s after the faults stopped", quietSeconds)
                                : "NOT reached within " + o.quietWait(),
                        totalSeconds));
        if (!o.sabotage().isEmpty()) {
            md.append("**Sabotaged on purpose before the check (`--sabotage ")
                    .append(String.join(",", o.sabotage()))
                    .append("`): this run must fail.**\n\n");
        }
        md.append("**Result: ")
                .append(violations == 0 ? "PASS, every invariant held" : "FAIL, " + violations + " violation(s)")
                .append("**\n\n");
        invariants(md, checks);
        md.append("\n## Workload\n\n| what | count |\n|---|---|\n");
        row(md, "orders placed (201)", load.placed.size());
        row(md, "of which captured (200)", load.captured.size());
        row(md, "of which cancelled (200)", load.cancelled.size());
        row(md, "events (outbox rows)", env.count("SELECT count(*) FROM chaos_product_outbox"));
        for (Map<String, Object> r :
                env.rows("SELECT message_type, count(*) n FROM chaos_product_outbox GROUP BY 1 ORDER BY 1")) {
            row(md, "&nbsp;&nbsp;" + r.get("message_type"), ((Number) r.get("n")).longValue());
        }
        row(
                md,
                "aggregates with several versions / with one",
                env.count("SELECT count(*) FROM orders WHERE version > 1") + " / "
                        + env.count("SELECT count(*) FROM orders WHERE version = 1"));
        row(md, "HTTP writes / requests", load.writes.get() + " / " + load.requests.get());
        row(md, "client retries (same Idempotency-Key)", load.retries.get());
        row(md, "answers replayed from the idempotency store", load.replays.get());
        for (Map.Entry<String, java.util.concurrent.atomic.AtomicLong> e :
                new java.util.TreeMap<>(load.failures).entrySet()) {
            row(md, "&nbsp;&nbsp;client saw: " + e.getKey(), e.getValue().get());
        }
        row(md, "writes given up after " + 90 + " s (outcome unknown to the client)", load.abandoned.size());
        row(
                md,
                "unexpected answers to first attempts",
                load.unexpected.stream().filter(u -> !u.retried()).count());
        md.append(String.format("%nOrders per second under faults: %.0f.%n", load.placed.size() / loadSeconds));

        md.append("\n## Faults\n\n| fault | injected | skipped (target busy) |\n|---|---|---|\n");
        Map<FaultPlan.Kind, long[]> counts = faults.countsByKind();
        long injected = 0;
        for (FaultPlan.Kind k : FaultPlan.Kind.values()) {
            long[] c = counts.get(k);
            injected += c[0];
            md.append("| ")
                    .append(k.name())
                    .append(": ")
                    .append(k.description)
                    .append(" | ")
                    .append(c[0])
                    .append(" | ")
                    .append(c[1])
                    .append(" |\n");
        }
        md.append(String.format(
                "| **all** | **%d** | |%n%nAt most %d faults were under way at once; planned %d."
                        + " The schedule is in `faults.md`.%n",
                injected, maxOverlap(), plan.faults().size()));

        md.append("\n## Recovery and delivery\n\n| measure | value |\n|---|---|\n");
        takenBack(
                md,
                FaultPlan.Kind.KILL_RELAY,
                "relay SIGKILL until no row is left under its lease (taken back by"
                        + " another relay's liveness sweep, or by itself after a restart with the same id)");
        recovery(md, FaultPlan.Kind.KILL_RELAY, "relay SIGKILL until every row it had leased is PUBLISHED");
        recovery(
                md,
                FaultPlan.Kind.PAUSE_RELAY,
                "relay SIGSTOP (beyond its lease) until every row it had leased is" + " PUBLISHED");
        if (o.partitions()) {
            recovery(
                    md,
                    FaultPlan.Kind.PARTITION_DB,
                    "relay's link to PostgreSQL black-holed until every row it had leased is PUBLISHED");
        }
        Map<String, Object> delay = env.rows(
                        "SELECT count(*) n, percentile_cont(0.5) WITHIN GROUP (ORDER BY d) p50,"
                                + " percentile_cont(0.99) WITHIN GROUP (ORDER BY d) p99, max(d) mx FROM (SELECT extract(epoch FROM"
                                + " j.first - m.created_at)::float8 d FROM chaos_product_outbox m JOIN (SELECT message_id, min(applied_at) first"
                                + " FROM ledger_journal GROUP BY message_id) j ON j.message_id = m.id::text"
                                + " WHERE extract(epoch FROM m.created_at) BETWEEN ? AND ?) s",
                        loadStart,
                        faultsEnd)
                .get(0);
        row(
                md,
                "commit to consume during faults (first application by the ledger), p50 / p99 / max",
                String.format(
                        "%s / %s / %s s over %s events",
                        secs(delay.get("p50")), secs(delay.get("p99")), secs(delay.get("mx")), delay.get("n")));
        Map<String, Object> split = env.rows(
                        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY p) p50p,"
                                + " percentile_cont(0.99) WITHIN GROUP (ORDER BY p) p99p, max(p) mxp,"
                                + " percentile_cont(0.5) WITHIN GROUP (ORDER BY c) p50c, percentile_cont(0.99) WITHIN GROUP (ORDER BY c)"
                                + " p99c, max(c) mxc FROM (SELECT extract(epoch FROM m.published_at - m.created_at)::float8 p,"
                                + " greatest(0, extract(epoch FROM j.first - m.published_at))::float8 c FROM chaos_product_outbox m"
                                + " JOIN (SELECT message_id, min(applied_at) first FROM ledger_journal GROUP BY message_id) j"
                                + " ON j.message_id = m.id::text WHERE extract(epoch FROM m.created_at) BETWEEN ? AND ?) s",
                        loadStart,
                        faultsEnd)
                .get(0);
        row(
                md,
                "&nbsp;&nbsp;of which commit to PUBLISHED (relays), p50 / p99 / max",
                String.format(
                        "%s / %s / %s s", secs(split.get("p50p")), secs(split.get("p99p")), secs(split.get("mxp"))));
        row(
                md,
                "&nbsp;&nbsp;of which PUBLISHED to applied (broker and consumers; a row published again after"
                        + " stale recovery counts from its last publication), p50 / p99 / max",
                String.format(
                        "%s / %s / %s s", secs(split.get("p50c")), secs(split.get("p99c")), secs(split.get("mxc"))));
        row(
                md,
                "messages the relays published more than once (seen on the observer queue)",
                observer.duplicateIds() + " (" + observer.extraCopies()
                        + " extra copies), every one absorbed unless invariant 2 or 3 says otherwise");
        row(
                md,
                "duplicates / stale copies the consumers absorbed (processes that stopped cleanly; a killed one's"
                        + " counts die with it)",
                consumerTotals[2] + " / " + consumerTotals[3]);
        row(
                md,
                "events the observer queue saw / published rows",
                observer.copies.size() + " / "
                        + env.count("SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED'"));
        row(
                md,
                "rows given back by a relay that died or whose lease ran out (STALE_LOCK / RELAY_DIED: in hand at a"
                        + " second death, then published alone)",
                env.count("SELECT count(*) FROM chaos_product_outbox WHERE last_error_code = 'STALE_LOCK'") + " / "
                        + env.count("SELECT count(*) FROM chaos_product_outbox WHERE last_error_code = 'RELAY_DIED'"));

        md.append("\nEvery relay SIGKILL that caught the relay holding leases: its rows are free again once no row"
                        + " is left under its lease; publishing them also needs the broker and a running relay.\n\n")
                .append(killedRelays());
        if (generated != null && generated.total() > 0) {
            md.append("\n## Generated rows\n\n")
                    .append(generated.total())
                    .append(" rows generated over every column's range (`GeneratedRows`) and written by plain SQL"
                            + " during the load: ")
                    .append(generated.written.get())
                    .append(" stored; PostgreSQL refused (SQLSTATE: rows) ")
                    .append(generated.refused())
                    .append("; ")
                    .append(generated.renamed.get())
                    .append(" routing keys the ledger's queue is bound to got a `gen.` prefix.\n\n");
            if (generatedVerdict != null) {
                md.append(generatedVerdict
                        .describe()
                        .replaceAll("(?m)^plain rows: 0, slowest commit -> PUBLISHED: 0 ms\n", ""));
            }
        }
        md.append("\n## Processes\n\n");
        if (fleet.unexpectedExits.isEmpty()) {
            md.append("No process exited unless a fault killed it.");
        } else {
            md.append("**Processes that exited by themselves** (restarted by the soak):\n\n");
            for (Fleet.UnexpectedExit e : fleet.unexpectedExits) {
                md.append(String.format(
                        "- %s generation %d, exit code %d at %.1f s; last lines:%n%n```%n%s%n```%n",
                        e.slot(), e.generation(), e.exitCode(), e.atSeconds(), e.logTail()));
            }
        }
        md.append("\nExit codes on the final SIGTERM: ")
                .append(exits)
                .append(". Logs of every process generation: `logs/`.\n");
        return md.toString();
    }

    private void recovery(StringBuilder md, FaultPlan.Kind kind, String what) {
        List<Faults.LeaseRecovery> all =
                faults.recoveries.stream().filter(r -> r.kind() == kind).toList();
        List<Double> times = all.stream()
                .filter(r -> r.rows() > 0 && r.recovered())
                .map(Faults.LeaseRecovery::seconds)
                .sorted()
                .toList();
        long empty = all.stream().filter(r -> r.rows() == 0).count();
        long open = all.stream().filter(r -> !r.recovered()).count();
        long rows = all.stream().mapToLong(Faults.LeaseRecovery::rows).sum();
        row(
                md,
                what + ", p50 / max",
                times.isEmpty()
                        ? "no " + kind.name() + " caught a relay holding leases (" + all.size() + " injected)"
                        : String.format(
                                "%.1f / %.1f s (%d faults with %d leased rows; %d held none;" + " %d never recovered)",
                                percentile(times, 0.5), times.get(times.size() - 1), times.size(), rows, empty, open));
    }

    private void takenBack(StringBuilder md, FaultPlan.Kind kind, String what) {
        List<Double> times = faults.recoveries.stream()
                .filter(r -> r.kind() == kind && r.rows() > 0 && r.takenBackSeconds() >= 0)
                .map(Faults.LeaseRecovery::takenBackSeconds)
                .sorted()
                .toList();
        row(
                md,
                what + ", p50 / max",
                times.isEmpty()
                        ? "no " + kind.name() + " caught a relay holding leases"
                        : String.format(
                                "%.1f / %.1f s (%d faults)",
                                percentile(times, 0.5), times.get(times.size() - 1), times.size()));
    }

    /**
     * Each relay SIGKILL with its rows: taken back and published, and the faults that overlapped it
     * and keep rows from being published though they are free (the broker or the other relay away).
     */
    String killedRelays() {
        StringBuilder md =
                new StringBuilder("| killed at | relay | leased rows | taken back after | all published after"
                        + " | faults overlapping until then |\n|---|---|---|---|---|---|\n");
        List<Faults.LeaseRecovery> kills = faults.recoveries.stream()
                .filter(r -> r.kind() == FaultPlan.Kind.KILL_RELAY && r.rows() > 0)
                .sorted(Comparator.comparingDouble(Faults.LeaseRecovery::atSeconds))
                .toList();
        for (Faults.LeaseRecovery r : kills) {
            double until = r.atSeconds() + r.seconds();
            String overlapping = faults.done.stream()
                    .filter(d -> d.startSeconds() < until && d.endSeconds() > r.atSeconds() - 1)
                    .filter(d -> d.fault().kind() == FaultPlan.Kind.BROKER_RESTART
                            || d.fault().kind() == FaultPlan.Kind.PROXY_CUT
                            || d.fault().kind() == FaultPlan.Kind.PAUSE_RELAY
                            || d.fault().kind() == FaultPlan.Kind.PARTITION_DB
                            || d.fault().kind() == FaultPlan.Kind.PARTITION_BROKER
                            || d.fault().kind() == FaultPlan.Kind.KILL_RELAY && d.startSeconds() > r.atSeconds() + 0.5)
                    .map(d -> String.format(
                            "%s %.1f–%.1f s",
                            d.fault().kind(), d.startSeconds() - loadOffset, d.endSeconds() - loadOffset))
                    .collect(java.util.stream.Collectors.joining(", "));
            md.append(String.format(
                    "| %.1f s | %s | %d | %s | %s | %s |%n",
                    r.atSeconds() - loadOffset,
                    r.relay(),
                    r.rows(),
                    r.takenBackSeconds() < 0 ? "never" : String.format("%.1f s", r.takenBackSeconds()),
                    r.recovered() ? String.format("%.1f s", r.seconds()) : "never",
                    overlapping.isEmpty() ? "none" : overlapping));
        }
        return md.toString();
    }

    String faultLog() {
        StringBuilder md = new StringBuilder(
                "# Fault schedule, seed " + o.seed() + "\n\nSeconds since the load"
                        + " started; \"ended\" is when the fault had undone itself (restart, SIGCONT, restore).\n\n"
                        + "| planned at | kind | target | length | started | ended | outcome |\n|---|---|---|---|---|---|---|\n");
        List<Faults.Done> done = new ArrayList<>(faults.done);
        done.sort(Comparator.comparingDouble(Faults.Done::startSeconds));
        for (Faults.Done d : done) {
            md.append(String.format(
                    "| %.1f s | %s | %d | %d ms | %.1f s | %.1f s | %s |%n",
                    d.fault().at().toMillis() / 1000.0,
                    d.fault().kind(),
                    d.fault().target(),
                    d.fault().length().toMillis(),
                    d.startSeconds() - loadOffset,
                    d.endSeconds() - loadOffset,
                    d.outcome()));
        }
        return md.toString();
    }

    private int maxOverlap() {
        List<double[]> edges = new ArrayList<>();
        for (Faults.Done d : faults.done) {
            if (d.injected()) {
                edges.add(new double[] {d.startSeconds(), 1});
                edges.add(new double[] {Math.max(d.endSeconds(), d.startSeconds() + 0.001), -1});
            }
        }
        edges.sort(Comparator.<double[]>comparingDouble(e -> e[0]).thenComparingDouble(e -> e[1]));
        int now = 0;
        int max = 0;
        for (double[] e : edges) {
            now += (int) e[1];
            max = Math.max(max, now);
        }
        return max;
    }

    private static double percentile(List<Double> sorted, double p) {
        // nearest rank: the p50 of two values is the lower one, not the max
        return sorted.get((int) Math.max(0, Math.ceil(p * sorted.size()) - 1));
    }

    private static String secs(Object v) {
        return v == null ? "-" : String.format("%.2f", ((Number) v).doubleValue());
    }

    private static void row(StringBuilder md, String what, Object value) {
        md.append("| ").append(what).append(" | ").append(value).append(" |\n");
    }

    /** The invariants' table and, below it, each check's details: the soak's and the failover test's. */
    static void invariants(StringBuilder md, List<Invariants.Check> checks) {
        md.append("| # | invariant | violations |\n|---|---|---|\n");
        for (Invariants.Check c : checks) {
            md.append("| ")
                    .append(c.number())
                    .append(" | ")
                    .append(c.invariant())
                    .append(" | ")
                    .append(c.violations())
                    .append(" |\n");
        }
        md.append('\n');
        for (Invariants.Check c : checks) {
            if (!c.details().isEmpty()) {
                md.append("- ")
                        .append(c.number())
                        .append(": ")
                        .append(String.join("\n  ", c.details()))
                        .append('\n');
            }
        }
    }
}
