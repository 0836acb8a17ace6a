package dev.outbox.chaos;

import dev.outbox.messaging.QueueType;
import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.EnvFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ops/failover.sh}: the failover test on the cluster of {@code ops/cluster.sh}. Two API, two
 * relay and two ledger consumer processes run on the 3-node RabbitMQ cluster (quorum queues) and
 * the PostgreSQL primary with its synchronous standby, under steady order load. Then, one after
 * the other, with the cluster whole again between them:
 *
 * <ol>
 *   <li>SIGKILL the RabbitMQ node relay-1 is connected to;
 *   <li>SIGKILL the node leading the ledger queue;
 *   <li>SIGKILL the PostgreSQL primary and promote the standby.
 * </ol>
 *
 * For each it reports how long until a row was published again, the ledger applied again, an
 * order committed again, and each process on the killed node reconnected. Then the load stops,
 * the system goes quiet, and the soak's invariants are checked: every row marked PUBLISHED reached
 * the ledger (no confirmed message lost), every order answered 201 exists, nothing booked twice.
 * Exit code 0 when every phase recovered and every invariant held, 1 otherwise, 2 when it could
 * not run.
 */
public final class FailoverMain {
    private static final Pattern CONNECTED_NODE = Pattern.compile("node 127\\.0\\.0\\.1:(\\d+)");
    private static final Duration RECOVERY_BOUND = Duration.ofSeconds(90);
    /** How long after a kill pauses are looked for. */
    private static final Duration WINDOW = Duration.ofSeconds(15);
    /** The steady running just before a kill that its pauses are compared with; --steady is at least this. */
    private static final Duration BASELINE = Duration.ofSeconds(5);

    private static final int AMQP_BASE = 5700;

    /**
     * One fault and what it took to recover from it, in seconds: the longest pause in publishing,
     * in the ledger applying and in orders answered 201, over the {@link #WINDOW} after the kill,
     * beside the longest pause over the {@link #BASELINE} of steady running just before it; and when
     * each process on the killed node connected again (-1: not within {@link #RECOVERY_BOUND}).
     */
    record Phase(
            String fault, String target, Pause publish, Pause applied, Pause orders, Map<String, Double> reconnects) {

        boolean recovered() {
            return publish.after() >= 0
                    && applied.after() >= 0
                    && orders.after() >= 0
                    && reconnects.values().stream().allMatch(v -> v >= 0);
        }
    }

    /**
     * What the relays had published more than once, and had given back as a dead relay's, up to a
     * moment: read just before each kill and once at the end, so the difference between two
     * readings is what the fault between them cost (the steady load alone publishes nothing twice).
     */
    record Tally(long extraCopies, long duplicateIds, long relayDiedRows) {
        static Tally of(ChaosEnv env, Observer observer) {
            return new Tally(
                    observer.extraCopies(),
                    observer.duplicateIds(),
                    // a dead relay's row goes back as STALE_LOCK, as RELAY_DIED if it had been given back before
                    env.count("SELECT count(*) FROM message_outbox WHERE last_error_code IN ('RELAY_DIED',"
                            + " 'STALE_LOCK')"));
        }

        String since(Tally before) {
            return String.format(
                    Locale.ROOT,
                    "%d extra copies of %d message ids; %d rows given back (STALE_LOCK or RELAY_DIED)",
                    extraCopies - before.extraCopies,
                    duplicateIds - before.duplicateIds,
                    relayDiedRows - before.relayDiedRows);
        }
    }

    /** The longest gap between two events in the window after the kill, and in the steady window before. */
    record Pause(double before, double after) {
        @Override
        public String toString() {
            return after < 0 ? "NOT resumed" : String.format(Locale.ROOT, "%.2f s (steady: %.2f s)", after, before);
        }
    }

    private FailoverMain() {}

    public static void main(String[] args) {
        int code;
        try {
            code = run(args);
        } catch (IllegalArgumentException e) {
            System.err.println("[failover] " + e.getMessage());
            code = 2;
        } catch (Exception e) {
            System.err.println("[failover] the test could not run: " + e);
            e.printStackTrace();
            code = 2;
        }
        System.exit(code);
    }

    static int run(String[] args) throws Exception {
        Path clusterEnv = Path.of("/var/tmp/outbox-cluster/cluster.env");
        Path out = Path.of("target/failover");
        Duration steady = Duration.ofSeconds(10);
        long seed = 14;
        List<String> relayArgs = new ArrayList<>();
        boolean databaseOnly = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                // relay settings, as the soak takes them: --relay OUTBOX_RELAY_MODE=cdc runs the failover in CDC mode
                case "--relay" -> relayArgs.addAll(List.of("--relay", value(args, ++i)));
                // only the PostgreSQL failover (CI's CDC run: the broker-node kills do not touch the slot)
                case "--database-only" -> databaseOnly = true;
                case "--cluster-env" -> clusterEnv = Path.of(value(args, ++i));
                case "--out" -> out = Path.of(value(args, ++i));
                case "--steady" ->
                    steady = Duration.ofSeconds(Long.parseLong(value(args, ++i).replace("s", "")));
                case "--seed" -> seed = Long.parseLong(value(args, ++i));
                default ->
                    throw new IllegalArgumentException("usage: ops/failover.sh [--cluster-env FILE]"
                            + " [--out DIR] [--steady 10s] [--seed N] [--relay OUTBOX_RELAY_X=value]... [--database-only]; unknown "
                            + args[i]);
            }
        }
        if (steady.compareTo(BASELINE) < 0) {
            throw new IllegalArgumentException("--steady must be at least " + BASELINE.toSeconds()
                    + " s: the pauses after each kill are compared with that much steady running before it");
        }
        long t0 = System.nanoTime();
        Files.createDirectories(out);
        List<String> chaosArgs = new ArrayList<>(List.of(
                "--short",
                "--seed",
                Long.toString(seed),
                "--db",
                "outbox_failover",
                "--vhost",
                "outbox-failover",
                "--out",
                out.toString()));
        chaosArgs.addAll(relayArgs);
        ChaosOptions o = ChaosOptions.parse(chaosArgs.toArray(String[]::new));
        Map<String, String> cluster = readEnv(clusterEnv);
        try (ChaosEnv env = ChaosEnv.forCluster(cluster, o.database(), o.vhost())) {
            say(t0, env.description);
            List<Phase> phases = new ArrayList<>();
            Faults.Window databaseOutage;
            try (Observer observer = Observer.start(env.amqpUri, QueueType.QUORUM);
                    Fleet fleet = new Fleet(env, o, env.amqpUri, t0)) {
                fleet.startAll();
                say(t0, "6 processes ready; steady load for " + steady.toSeconds() + " s before each fault");
                Workload load = new Workload(fleet.apiBases(), o.seed(), o.clients(), t0);
                load.start();
                Thread.sleep(steady.toMillis());

                List<Tally> tallies = new ArrayList<>();
                if (!databaseOnly) {
                    Fleet.Slot relay = fleet.of(Fleet.Kind.RELAY).get(0);
                    int node = connectedNode(relay);
                    tallies.add(Tally.of(env, observer));
                    phases.add(killNode(
                            env,
                            fleet,
                            load,
                            t0,
                            "SIGKILL the RabbitMQ node " + relay.name + " is connected to",
                            node));
                    restartNode(env, t0, node);
                    Thread.sleep(steady.toMillis());

                    int leader = queueLeader(env, LedgerConsumer.QUEUE, 0);
                    tallies.add(Tally.of(env, observer));
                    phases.add(
                            killNode(env, fleet, load, t0, "SIGKILL the node leading " + LedgerConsumer.QUEUE, leader));
                    restartNode(env, t0, leader);
                    Thread.sleep(steady.toMillis());
                }

                tallies.add(Tally.of(env, observer));
                long killed = System.currentTimeMillis();
                ChaosEnv.clusterScript("pg-failover");
                long promoted = System.currentTimeMillis();
                say(t0, "PostgreSQL primary killed, standby promoted in " + (promoted - killed) + " ms");
                Phase pg = measure(
                        env,
                        load,
                        "SIGKILL the PostgreSQL primary, promote the standby",
                        "127.0.0.1:5441 -> 127.0.0.1:5442",
                        killed,
                        Map.of(),
                        t0);
                phases.add(pg);
                databaseOutage = new Faults.Window(
                        killed - nanosToMillis(t0) - 500, killed - nanosToMillis(t0) + WINDOW.toMillis());
                Thread.sleep(steady.toMillis());

                load.stop();
                say(t0, "load stopped: " + load.placedCount() + " orders; waiting for quiet");
                double quiet = ChaosMain.awaitQuiet(env, observer, Duration.ofMinutes(3));
                say(t0, quiet >= 0 ? String.format(Locale.ROOT, "quiet after %.1f s", quiet) : "NOT quiet in 3 min");
                Map<String, Integer> exits = fleet.stopAll();
                long deadLettered = observer.messageCount(Topology.deadLetterQueueOf(LedgerConsumer.QUEUE));
                ChaosMain.awaitObserver(env, observer);
                tallies.add(Tally.of(env, observer));
                List<String> duplicates = new ArrayList<>();
                for (int i = 0; i < phases.size(); i++) {
                    duplicates.add(tallies.get(i + 1).since(tallies.get(i)));
                    say(t0, phases.get(i).fault() + ": " + duplicates.get(i));
                }
                fleet.collectLogs(out.resolve("logs"));
                List<Invariants.Check> checks =
                        new Invariants(env, load, observer, List.of(databaseOutage), deadLettered).check();
                String report = report(env, load, phases, duplicates, checks, exits, fleet, quiet, t0);
                Files.writeString(out.resolve("report.md"), report, StandardCharsets.UTF_8);
                System.out.println();
                System.out.println(report);
                long violations =
                        checks.stream().mapToLong(Invariants.Check::violations).sum();
                boolean recovered = phases.stream().allMatch(Phase::recovered) && quiet >= 0;
                say(
                        t0,
                        "report: " + out.resolve("report.md").toAbsolutePath() + "; "
                                + (recovered ? "every fault recovered" : "a fault did NOT recover") + ", "
                                + (violations == 0 ? "every invariant held" : violations + " violation(s)"));
                return violations == 0 && recovered ? 0 : 1;
            }
        }
    }

    /** Kills node cN and measures the recovery of everything that was connected to it. */
    private static Phase killNode(ChaosEnv env, Fleet fleet, Workload load, long t0, String fault, int node)
            throws Exception {
        Map<Fleet.Slot, Integer> affected = new LinkedHashMap<>();
        for (Fleet.Slot s : fleet.slots) {
            if (s.kind != Fleet.Kind.API && connectedNode(s) == node) {
                affected.put(s, count(CONNECTED_NODE, s.output()));
            }
        }
        long killed = System.currentTimeMillis();
        ChaosEnv.clusterScript("kill-node", Integer.toString(node));
        say(
                t0,
                fault + ": c" + node + "@localhost killed; connected to it: "
                        + affected.keySet().stream().map(s -> s.name).toList());
        return measure(env, load, fault, "c" + node + "@localhost", killed, affected, t0);
    }

    /**
     * Waits for every affected process to log a new connection (the log line's own timestamp is
     * the reconnection time), then until the window after the kill is over, then reads the pauses.
     */
    private static Phase measure(
            ChaosEnv env,
            Workload load,
            String fault,
            String target,
            long killedMillis,
            Map<Fleet.Slot, Integer> affected,
            long t0)
            throws InterruptedException {
        Map<String, Double> reconnects = new LinkedHashMap<>();
        affected.keySet().forEach(s -> reconnects.put(s.name, -1.0));
        long bound = killedMillis + RECOVERY_BOUND.toMillis();
        while (System.currentTimeMillis() < bound && reconnects.containsValue(-1.0)) {
            for (Map.Entry<Fleet.Slot, Integer> e : affected.entrySet()) {
                if (reconnects.get(e.getKey().name) < 0) {
                    long at = nthConnectionTime(e.getKey().output(), e.getValue());
                    if (at > 0) {
                        reconnects.put(e.getKey().name, (at - killedMillis) / 1000.0);
                    }
                }
            }
            Thread.sleep(200);
        }
        long windowEnd = killedMillis + WINDOW.toMillis();
        while (System.currentTimeMillis() < windowEnd) {
            Thread.sleep(200);
        }
        double kill = killedMillis / 1000.0;
        double window = WINDOW.toMillis() / 1000.0;
        double baseline = BASELINE.toMillis() / 1000.0;
        Pause publish = null;
        Pause applied = null;
        while (System.currentTimeMillis() < bound && (publish == null || applied == null)) {
            try {
                publish = new Pause(
                        longestGap(env, "message_outbox", "published_at", kill - baseline, kill),
                        longestGap(env, "message_outbox", "published_at", kill, kill + window));
                applied = new Pause(
                        longestGap(env, "ledger_journal", "applied_at", kill - baseline, kill),
                        longestGap(env, "ledger_journal", "applied_at", kill, kill + window));
            } catch (RuntimeException e) {
                Thread.sleep(500); // the database is what failed over: ask again
            }
        }
        Pause orders = new Pause(
                load.longestGapBetween201s(killedMillis - BASELINE.toMillis(), killedMillis),
                load.longestGapBetween201s(killedMillis, windowEnd));
        Phase p = new Phase(
                fault,
                target,
                publish == null ? new Pause(-1, -1) : publish,
                applied == null ? new Pause(-1, -1) : applied,
                orders,
                reconnects);
        say(
                t0,
                target + ": longest pause in publishing " + p.publish() + ", in the ledger " + p.applied()
                        + ", in 201s " + p.orders() + "; reconnected " + reconnects);
        return p;
    }

    /**
     * The longest time between consecutive events of a column in [from, to] (epoch seconds),
     * counting from {@code from} to the first event and from the last one to {@code to}, so a stall
     * at either edge counts too; -1 when there is no event at all.
     */
    private static double longestGap(ChaosEnv env, String table, String column, double from, double to) {
        Object gap = env.rows(
                        "WITH t AS (SELECT extract(epoch FROM " + column + ")::float8 AS at FROM " + table
                                + " WHERE " + column + " BETWEEN to_timestamp(?) AND to_timestamp(?)"
                                + " UNION ALL SELECT ?::float8 UNION ALL SELECT ?::float8)"
                                + " SELECT CASE WHEN count(*) > 2 THEN max(gap) END AS gap FROM"
                                + " (SELECT at - lag(at) OVER (ORDER BY at) AS gap FROM t) g",
                        from,
                        to,
                        from,
                        to)
                .get(0)
                .get("gap");
        return gap == null ? -1 : ((Number) gap).doubleValue();
    }

    /** The epoch millis of a process's n-th (from 0) broker connection line, or -1 before it is logged. */
    private static long nthConnectionTime(String log, int n) {
        int i = 0;
        for (String line : log.split("\n")) {
            if (CONNECTED_NODE.matcher(line).find() && i++ == n) {
                return Instant.parse(line.substring(0, line.indexOf(' '))).toEpochMilli();
            }
        }
        return -1;
    }

    /** The port-derived node number a process's last broker connection went to, or -1. */
    private static int connectedNode(Fleet.Slot s) {
        Matcher m = CONNECTED_NODE.matcher(s.output());
        int port = -1;
        while (m.find()) {
            port = Integer.parseInt(m.group(1));
        }
        return port < 0 ? -1 : port - AMQP_BASE;
    }

    /** The node number leading a quorum queue, asked of a live node other than {@code notOn}. */
    private static int queueLeader(ChaosEnv env, String queue, int notOn) throws Exception {
        for (int n = 1; n <= 3; n++) {
            if (n == notOn) {
                continue;
            }
            String out = ChaosEnv.clusterctlOn(
                    "c" + n + "@localhost", "list_queues", "-p", env.vhost, "name", "leader", "--no-table-headers");
            for (String line : out.split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length == 2 && f[0].equals(queue)) {
                    return Integer.parseInt(f[1].replaceAll("^c(\\d+)@.*$", "$1"));
                }
            }
        }
        throw new IllegalStateException("no leader found for " + queue);
    }

    /** Starts node cN again and waits until the ledger queue has all three members online. */
    private static void restartNode(ChaosEnv env, long t0, int node) throws Exception {
        long start = System.currentTimeMillis();
        ChaosEnv.clusterScript("start-node", Integer.toString(node));
        long deadline = start + 120_000;
        while (System.currentTimeMillis() < deadline) {
            String out = ChaosEnv.clusterctlOn(
                    "c" + node + "@localhost", "list_queues", "-p", env.vhost, "name", "online", "--no-table-headers");
            for (String line : out.split("\n")) {
                if (line.startsWith(LedgerConsumer.QUEUE + "\t") || line.startsWith(LedgerConsumer.QUEUE + " ")) {
                    if (count(Pattern.compile("c\\d@localhost"), line) == 3) {
                        say(
                                t0,
                                "c" + node + "@localhost back, " + LedgerConsumer.QUEUE + " has 3 members online after "
                                        + (System.currentTimeMillis() - start) + " ms");
                        return;
                    }
                }
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("c" + node + " did not rejoin within 120 s");
    }

    private static String report(
            ChaosEnv env,
            Workload load,
            List<Phase> phases,
            List<String> duplicates,
            List<Invariants.Check> checks,
            Map<String, Integer> exits,
            Fleet fleet,
            double quiet,
            long t0) {
        StringBuilder r = new StringBuilder("# Failover test\n\n");
        r.append(env.description).append("  \n");
        r.append(String.format(
                Locale.ROOT,
                "%d orders placed by %d requests (%d client retries), quiet %.1f s after the load stopped,"
                        + " %.0f s in all.%n%n",
                load.placedCount(),
                load.requests.get(),
                load.retries.get(),
                quiet,
                (System.nanoTime() - t0) / 1e9));
        r.append("| fault | target | longest pause in publishing | in the ledger applying | in orders answered 201"
                        + " | processes on the killed node connected again after |\n")
                .append("|---|---|---|---|---|---|\n");
        for (Phase p : phases) {
            List<String> rc = new ArrayList<>();
            p.reconnects().forEach((k, v) -> rc.add(k + " " + secondsText(v)));
            r.append("| ")
                    .append(p.fault())
                    .append(" | ")
                    .append(p.target())
                    .append(" | ")
                    .append(p.publish())
                    .append(" | ")
                    .append(p.applied())
                    .append(" | ")
                    .append(p.orders())
                    .append(" | ")
                    .append(rc.isEmpty() ? "-" : String.join(", ", rc))
                    .append(" |\n");
        }
        r.append("\nA pause is the longest time without a single row published (ledger entry applied, order"
                + " answered 201) in the " + WINDOW.toSeconds() + " s after the kill; \"steady\" is the same"
                + " measure over the " + BASELINE.toSeconds() + " s before it, what the load alone gives."
                + " Reconnection times come from the processes' own log lines.\n\n");
        r.append(
                        "| fault | published more than once (from just before it until just before the next fault, or the end) |\n")
                .append("|---|---|\n");
        for (int i = 0; i < phases.size(); i++) {
            r.append("| ")
                    .append(phases.get(i).fault())
                    .append(" | ")
                    .append(duplicates.get(i))
                    .append(" |\n");
        }
        r.append("\nCopies are counted on the observer's queue bound with `#` (first deliveries only); a row given back"
                + " (STALE_LOCK, or RELAY_DIED the second time) was taken from a relay whose liveness lock looked free,"
                + " or whose lease ran out, and is published again.\n\n");
        ChaosReport.invariants(r, checks);
        r.append("\nExit codes at the end: ").append(exits).append("; processes that exited by themselves: ");
        r.append(fleet.unexpectedExits.isEmpty() ? "none" : fleet.unexpectedExits.toString())
                .append("\n");
        return r.toString();
    }

    private static String secondsText(double s) {
        return s < 0 ? "NOT within " + RECOVERY_BOUND.toSeconds() + " s" : String.format(Locale.ROOT, "%.2f s", s);
    }

    private static int count(Pattern p, String text) {
        Matcher m = p.matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    private static long nanosToMillis(long t0) {
        // the wall-clock time at which the run's monotonic clock read t0
        return System.currentTimeMillis() - (System.nanoTime() - t0) / 1_000_000;
    }

    /** {@code ops/cluster.sh}'s settings file, read as the README's {@code set -a; . file} reads it. */
    static Map<String, String> readEnv(Path file) throws IOException {
        return EnvFile.read(file);
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static void say(long t0, String what) {
        System.out.printf(Locale.ROOT, "[failover] %6.1fs %s%n", (System.nanoTime() - t0) / 1e9, what);
    }
}
