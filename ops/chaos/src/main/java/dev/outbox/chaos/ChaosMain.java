package dev.outbox.chaos;

import dev.outbox.messaging.QueueType;
import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.TcpProxy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ops/chaos.sh}: the chaos soak. Starts two API, two relay and two ledger consumer
 * processes on a database and vhost of its own, drives them with HTTP clients, injects the
 * seed's faults, lets the system go quiet, stops it, checks the invariants and writes the report.
 * Exit code 0 when every invariant held, 1 on any violation, 2 when it could not run.
 */
public final class ChaosMain {
    private static final Pattern CONSUMER_TOTALS = Pattern.compile(
            "ledger consumer stopped: applied=(\\d+) \\(\\+(\\d+) held, applied later\\) duplicates=(\\d+) stale=(\\d+)");

    private ChaosMain() {}

    public static void main(String[] args) {
        ChaosOptions o;
        try {
            o = ChaosOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        int code;
        try {
            code = run(o);
        } catch (Exception e) {
            System.err.println("[chaos] the soak could not run: " + e);
            e.printStackTrace();
            code = 2;
        }
        System.exit(code);
    }

    static int run(ChaosOptions o) throws Exception {
        long t0 = System.nanoTime();
        System.out.println(
                "[chaos] seed " + o.seed() + "; replay with: ops/chaos.sh " + String.join(" ", replayArgs(o)));
        if (o.partitions() && !dev.outbox.testkit.net.NetworkSandbox.available()) {
            System.err.println("[chaos] --partitions runs each process in a network namespace: it needs Linux, root"
                    + " and iproute2 (ip), which this machine does not offer");
            return 2;
        }
        Files.createDirectories(o.out());
        boolean cluster = o.cluster() != null;
        try (ChaosEnv env = cluster
                ? ChaosEnv.forCluster(FailoverMain.readEnv(o.cluster()), o.database(), o.vhost())
                : ChaosEnv.create(o)) {
            System.out.println("[chaos] " + env.description);
            FaultPlan plan = FaultPlan.draw(
                    o.seed(),
                    o.duration(),
                    o.faultInterval(),
                    o.lease(),
                    o.brokerRestart(),
                    env.rabbitmqctl,
                    cluster,
                    o.partitions());
            // on a cluster the relays know every node and fail over themselves: no proxy in between
            try (TcpProxy proxy = cluster ? null : TcpProxy.start(env.brokerHost(), env.brokerPort());
                    Observer observer = Observer.start(env.amqpUri, cluster ? QueueType.QUORUM : QueueType.CLASSIC);
                    Fleet fleet =
                            new Fleet(env, o, cluster ? env.amqpUri : env.amqpUriVia(proxy.host(), proxy.port()), t0)) {
                // Ctrl-C or SIGTERM mid-soak: leave no process behind (a SIGSTOPped relay among them) and no
                // broker application stopped; an orderly end has cleaned up before the JVM exits
                AtomicBoolean finished = new AtomicBoolean();
                Runtime.getRuntime()
                        .addShutdownHook(new Thread(
                                () -> {
                                    if (!finished.get()) {
                                        interrupted(fleet, o);
                                    }
                                },
                                "chaos-interrupted"));
                fleet.startAll();
                System.out.printf(
                        "[chaos] %6.1fs 6 processes ready; load and %d faults for %s%n",
                        seconds(t0), plan.faults().size(), o.duration());
                Workload load = new Workload(fleet.apiBases(), o.seed(), o.clients(), t0);
                GeneratedLoad generated = new GeneratedLoad(env, o.generatedRows(), o.seed(), o.duration());
                Faults faults = new Faults(env, fleet, proxy, t0);
                double loadStart = dbNow(env);
                long loadStartNanos = System.nanoTime();
                load.start();
                generated.start();
                faults.schedule(plan, loadStartNanos);
                long end = loadStartNanos + o.duration().toNanos();
                long nextProgress = System.nanoTime() + 10_000_000_000L;
                while (System.nanoTime() < end || load.placedCount() < o.orders()) {
                    Thread.sleep(200);
                    if (System.nanoTime() >= nextProgress) {
                        nextProgress += 10_000_000_000L;
                        System.out.printf(
                                "[chaos] %6.1fs orders %d, requests %d, client retries %d, faults %d%n",
                                seconds(t0),
                                load.placedCount(),
                                load.requests.get(),
                                load.retries.get(),
                                faults.done.size());
                    }
                }
                faults.stop();
                double faultsEnd = dbNow(env);
                load.stop();
                generated.stop();
                double loadSeconds = (System.nanoTime() - loadStartNanos) / 1e9;
                System.out.printf(
                        "[chaos] %6.1fs faults stopped, load stopped: %d orders; waiting for quiet (at most %s)%n",
                        seconds(t0), load.placedCount(), o.quietWait());
                double quiet = awaitQuiet(env, observer, o.quietWait(), generated);
                faults.endWatches();
                System.out.printf(
                        "[chaos] %6.1fs %s%n",
                        seconds(t0),
                        quiet >= 0 ? String.format("quiet after %.1f s", quiet) : "NOT quiet within " + o.quietWait());
                Map<String, Integer> exits = fleet.stopAll();
                long deadLettered = observer.messageCount(Topology.deadLetterQueueOf(LedgerConsumer.QUEUE));
                awaitObserver(env, observer);
                long[] consumerTotals = consumerTotals(fleet);
                fleet.collectLogs(o.out().resolve("logs"));
                Sabotage.apply(env, o.sabotage(), load);
                Invariants invariants = new Invariants(
                        env, load, observer, List.copyOf(faults.databaseOutages), deadLettered, generated);
                List<Invariants.Check> checks = invariants.check();
                ChaosReport report = new ChaosReport(
                        generated,
                        invariants.generatedVerdict,
                        o,
                        env,
                        plan,
                        load,
                        faults,
                        fleet,
                        observer,
                        checks,
                        exits,
                        consumerTotals,
                        loadSeconds,
                        quiet,
                        seconds(t0),
                        loadStart,
                        faultsEnd,
                        (loadStartNanos - t0) / 1e9);
                String markdown = report.markdown();
                Files.writeString(o.out().resolve("report.md"), markdown, StandardCharsets.UTF_8);
                Files.writeString(o.out().resolve("faults.md"), report.faultLog(), StandardCharsets.UTF_8);
                System.out.println();
                System.out.println(markdown);
                long violations =
                        checks.stream().mapToLong(Invariants.Check::violations).sum();
                System.out.println(
                        "[chaos] report: " + o.out().resolve("report.md").toAbsolutePath() + "; "
                                + (violations == 0 ? "every invariant held" : violations + " violation(s)"));
                finished.set(true);
                return violations == 0 ? 0 : 1;
            }
        }
    }

    private static void interrupted(Fleet fleet, ChaosOptions o) {
        System.out.println("[chaos] interrupted: killing the soak's processes");
        fleet.close();
        if (o.brokerRestart()) {
            try {
                System.out.println("[chaos] starting the broker application in case a fault had stopped it: "
                        + ChaosEnv.rabbitmqctl("start_app"));
            } catch (IOException | RuntimeException e) {
                System.out.println("[chaos] could not start the broker application: " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits until nothing is in flight: no outbox row unfinished, every row applied by the ledger,
     * nothing held, the ledger queue empty. Returns the seconds it took, or -1 at the bound.
     */
    static double awaitQuiet(ChaosEnv env, Observer observer, Duration bound) throws InterruptedException {
        return awaitQuiet(env, observer, bound, null);
    }

    /** {@link #awaitQuiet(ChaosEnv, Observer, Duration)}, and the relays done with the generated rows too. */
    static double awaitQuiet(ChaosEnv env, Observer observer, Duration bound, GeneratedLoad generated)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + bound.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                boolean quiet = env.count("SELECT count(*) FROM chaos_product_outbox WHERE status IN ('PENDING',"
                                        + " 'IN_PROGRESS', 'RETRYABLE_FAILED')")
                                == 0
                        && env.count("SELECT count(*) FROM consumer_held_messages") == 0
                        && observer.messageCount(LedgerConsumer.QUEUE) == 0
                        && env.count("SELECT count(*) FROM chaos_product_outbox m WHERE NOT EXISTS (SELECT 1"
                                        + " FROM ledger_journal j WHERE j.message_id = m.id::text)")
                                == 0
                        && (generated == null || generated.allDue() && generated.settled());
                if (quiet) {
                    return (System.nanoTime() - start) / 1e9;
                }
            } catch (RuntimeException | java.sql.SQLException e) {
                System.out.println("[chaos] while waiting for quiet: " + e);
            }
            Thread.sleep(1_000);
        }
        return -1;
    }

    /** The observer has seen every published row (or gives up after 15 s: it is a witness, not a judge). */
    static void awaitObserver(ChaosEnv env, Observer observer) throws InterruptedException {
        long published = env.count("SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED'");
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (observer.copies.size() < published && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
    }

    /** applied, held-applied, duplicates, stale: summed over consumer processes that stopped cleanly. */
    private static long[] consumerTotals(Fleet fleet) throws IOException {
        long[] t = new long[4];
        for (Fleet.Log l : fleet.logs) {
            if (!l.name().startsWith("consumer") || !Files.exists(l.path())) {
                continue;
            }
            Matcher m = CONSUMER_TOTALS.matcher(Files.readString(l.path(), StandardCharsets.UTF_8));
            while (m.find()) {
                for (int i = 0; i < 4; i++) {
                    t[i] += Long.parseLong(m.group(i + 1));
                }
            }
        }
        return t;
    }

    /** The database's clock, in epoch seconds: outbox and journal times are on it. */
    static double dbNow(ChaosEnv env) {
        return ((Number) env.rows("SELECT extract(epoch FROM clock_timestamp())::float8 AS now")
                        .get(0)
                        .get("now"))
                .doubleValue();
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    static List<String> replayArgs(ChaosOptions o) {
        List<String> a = new ArrayList<>(o.args());
        if (!a.contains("--seed")) {
            a.add("--seed");
            a.add(Long.toString(o.seed()));
        }
        return a;
    }
}
