package dev.outbox.chaos;

import dev.outbox.bench.Backlog;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.testkit.RabbitAdmin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;

/**
 * {@code ops/rollout.sh}: what a rolling update does to the relays. A backlog is written while no
 * relay runs; {@code --relays} relay processes start on it at once, each with its own id and the
 * relay Deployment's settings; mid-drain {@code --terminate} of them get SIGTERM at the same
 * moment and as many replacements start, as a rollout replaces pods; the rest drain the backlog.
 * All along, every relay's connections to PostgreSQL and RabbitMQ are sampled
 * ({@link ConnectionWatch}) and every message is counted on a queue of the test's own
 * ({@link CountingQueue}). Then the checks: connections within what the settings allow, per relay
 * and together, and no refusal or retry storm; each SIGTERMed relay out within the grace period
 * with its books balanced; every row published and delivered, duplicates only where a relay left
 * an outcome unknown. Exit code 0 when every check held, 1 when one did not, 2 when it could not
 * run.
 */
public final class RolloutMain {
    private final RolloutOptions o;
    private final long startNanos = System.nanoTime();
    private final long startWallMillis = System.currentTimeMillis();
    /** Every relay process of the run, in the order started; the watch reads it as it grows. */
    private final List<RolloutRelay> relays = new CopyOnWriteArrayList<>();
    /** Set once the relays were killed, at the end or by an interruption. */
    private boolean killed;

    private RolloutMain(RolloutOptions o) {
        this.o = o;
    }

    public static void main(String[] args) {
        RolloutOptions o;
        try {
            o = RolloutOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("[rollout] " + e.getMessage());
            System.exit(2);
            return;
        }
        int code;
        try {
            code = new RolloutMain(o).run();
        } catch (Exception e) {
            System.err.println("[rollout] the test could not run: " + e);
            e.printStackTrace();
            code = 2;
        }
        System.exit(code);
    }

    private int run() throws Exception {
        if (!ProcessSockets.available()) {
            System.err.println("[rollout] each relay's connections are read from /proc/net/tcp: this needs Linux");
            return 2;
        }
        Files.createDirectories(o.out());
        String loadBefore = RolloutReport.loadAverage();
        say(String.format(
                Locale.ROOT,
                "%d relays on %,d rows, %d SIGTERMed at %.0f%% delivered, grace %d s; load average %s",
                o.relays(),
                o.rows(),
                o.terminate(),
                o.terminateAt() * 100,
                o.grace().toSeconds(),
                loadBefore));
        try (ChaosEnv env = ChaosEnv.owned(o.database(), o.vhost())) {
            say(env.description);
            if (env.rabbitmqctl) {
                keepNothingButTheCount(env);
            } else {
                say("no rabbitmqctl: the broker's count of channels is not sampled, and the consumer queues the"
                        + " relays declare keep every message until the next run");
            }
            List<NewOutboxMessage> backlog = Backlog.events(o.rows());
            List<UUID> ids = backlog.stream().map(NewOutboxMessage::id).toList();
            double writeSeconds = write(env, backlog);
            say(String.format(Locale.ROOT, "backlog of %,d rows written in %.1f s", o.rows(), writeSeconds));
            long sessionsBefore = env.count("SELECT sessions FROM pg_stat_database WHERE datname = current_database()");
            AtomicBoolean finished = new AtomicBoolean();
            try (CountingQueue counter = CountingQueue.start(env.amqpUri, ids);
                    ConnectionWatch watch = new ConnectionWatch(
                            env, o, relays, databasePort(env.dbUrl), env.brokerPort(), this::now, counter::distinct)) {
                // Ctrl-C mid-run: leave no relay and no counting queue behind; an orderly end has cleaned up already
                Runtime.getRuntime()
                        .addShutdownHook(new Thread(
                                () -> {
                                    if (!finished.get()) {
                                        System.out.println("[rollout] interrupted: killing the relays");
                                        killAll();
                                        counter.close();
                                    }
                                },
                                "rollout-interrupted"));
                try {
                    RolloutRun run = rollout(env, counter, watch, ids, writeSeconds, sessionsBefore, loadBefore);
                    return RolloutReport.write(run, RolloutChecks.check(run), o.out());
                } finally {
                    killAll();
                    collectLogs();
                    finished.set(true);
                }
            }
        }
    }

    private RolloutRun rollout(
            ChaosEnv env,
            CountingQueue counter,
            ConnectionWatch watch,
            List<UUID> ids,
            double writeSeconds,
            long sessionsBefore,
            String loadBefore)
            throws Exception {
        Map<String, String> settings = relaySettings(env);
        watch.start();
        double launched = now();
        for (int i = 1; i <= o.relays(); i++) {
            start(i, RolloutRelay.Role.SURVIVOR, settings);
        }
        say(o.relays() + " relays started at once");
        List<RolloutRelay> firstWave = List.copyOf(relays);
        List<String> startFailures = new ArrayList<>(awaitRunning(firstWave));
        say(String.format(
                Locale.ROOT,
                "%d of %d running; %,d rows delivered so far",
                firstWave.stream().filter(r -> r.runningAt >= 0).count(),
                o.relays(),
                counter.distinct()));

        long threshold = (long) Math.ceil(o.terminateAt() * o.rows());
        long deadline = System.nanoTime() + drainBound().toNanos();
        while (counter.distinct() < threshold
                && System.nanoTime() < deadline
                && relays.stream().anyMatch(RolloutRelay::alive)) {
            Thread.sleep(20);
        }
        double sigtermAt = now();
        double deliveredAtSigterm = counter.distinct() / (double) o.rows();
        List<RolloutRelay> stopped = firstWave.stream()
                .filter(RolloutRelay::alive)
                .limit(o.terminate())
                .toList();
        // at the same moment, as a rolling update takes its pods
        for (RolloutRelay r : stopped) {
            r.role = RolloutRelay.Role.TERMINATED;
            r.sigterm(now());
        }
        List<RolloutRelay> replacements = new ArrayList<>();
        for (int i = 1; i <= o.terminate(); i++) {
            replacements.add(start(o.relays() + i, RolloutRelay.Role.REPLACEMENT, settings));
        }
        say(String.format(
                Locale.ROOT,
                "SIGTERM to %s at %.1f%% delivered; %d replacements started",
                stopped.stream().map(r -> r.id).toList(),
                deliveredAtSigterm * 100,
                replacements.size()));
        awaitExits(stopped, o.grace());
        for (RolloutRelay r : stopped) {
            say(String.format(
                    Locale.ROOT,
                    "%s exited %d after %.2f s%s",
                    r.id,
                    r.exitCode,
                    r.drainSeconds(),
                    r.killedAtGrace ? " (SIGKILLed at the grace period)" : ""));
        }
        startFailures.addAll(awaitRunning(replacements));

        double drained = awaitDrained(env, counter);
        say(
                drained >= 0
                        ? String.format(Locale.ROOT, "backlog drained at %.1f s", drained)
                        : "the backlog was NOT drained within " + drainBound().toSeconds() + " s");
        List<RolloutRelay> rest = relays.stream().filter(RolloutRelay::alive).toList();
        for (RolloutRelay r : rest) {
            r.sigterm(now());
        }
        // the rest stop once the work is done: not on a rollout's clock, but within the relay's own bound
        awaitExits(rest, Duration.ofSeconds(120));
        watch.close();
        for (RolloutRelay r : relays) {
            r.readLog(startWallMillis);
        }
        long confirmed = relays.stream()
                .filter(r -> r.stop != null)
                .mapToLong(r -> r.stop.published())
                .sum();
        awaitCounted(counter, confirmed);
        return new RolloutRun(
                o,
                env.description,
                machine(env, counter),
                (int) (env.count("SELECT setting::int FROM pg_settings WHERE name = 'max_connections'")
                        - env.count("SELECT setting::int FROM pg_settings WHERE name ="
                                + " 'superuser_reserved_connections'")),
                env.rabbitmqctl,
                List.copyOf(relays),
                List.copyOf(watch.samples),
                List.copyOf(watch.excesses),
                watch.failures.get() + " failed samples"
                        + (watch.failures.get() == 0 ? "" : ", last: " + watch.lastFailure),
                startFailures,
                writeSeconds,
                launched,
                sigtermAt,
                deliveredAtSigterm,
                seconds(counter.firstDeliveryNanos()),
                drained,
                counter.distinct(),
                counter.extraCopies(),
                counter.duplicatedIds(),
                counter.redeliveries.get(),
                counter.foreign.get(),
                counter.missing(ids),
                counter.stoppedEarly(),
                statuses(env),
                env.count("SELECT count(*) FROM message_outbox WHERE last_error_code IN ('STALE_LOCK', 'RELAY_DIED')"),
                env.count("SELECT sessions FROM pg_stat_database WHERE datname = current_database()") - sessionsBefore,
                loadBefore,
                RolloutReport.loadAverage());
    }

    private static String machine(ChaosEnv env, CountingQueue counter) {
        return String.format(
                Locale.ROOT,
                "Machine: %d cores, Java %s; PostgreSQL %s (max_connections %s, %s reserved); %s",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                env.rows("SHOW server_version").get(0).values().iterator().next(),
                env.rows("SHOW max_connections").get(0).values().iterator().next(),
                env.rows("SHOW superuser_reserved_connections")
                        .get(0)
                        .values()
                        .iterator()
                        .next(),
                counter.broker());
    }

    /** Starts a relay process, unless the test is being interrupted (then no process may outlive it). */
    private synchronized RolloutRelay start(int index, RolloutRelay.Role role, Map<String, String> settings)
            throws IOException {
        if (killed) {
            throw new IllegalStateException("interrupted: no more relays are started");
        }
        RolloutRelay r = RolloutRelay.launch(index, role, settings, now());
        relays.add(r);
        return r;
    }

    /** SIGKILL to every relay still running; none is started after it. */
    private synchronized void killAll() {
        killed = true;
        relays.forEach(r -> r.process.close());
    }

    /**
     * The relay Deployment's settings: the run's database and vhost, the pool size, an HTTP port
     * of its own (any free one: eight relays share a host here, not a pod each); everything else
     * the relay's defaults, migrations at start included.
     */
    private Map<String, String> relaySettings(ChaosEnv env) {
        Map<String, String> e = new LinkedHashMap<>(env.databaseEnv());
        e.putAll(env.processEnv);
        e.put("OUTBOX_AMQP_URI", env.amqpUri);
        e.put("OUTBOX_DB_POOL_SIZE", Integer.toString(o.poolSize()));
        e.put("OUTBOX_RELAY_HTTP_PORT", "0");
        e.putAll(o.relayEnv());
        return e;
    }

    /**
     * The relays declare the consumers' queues of their class path (the ledger's is bound to every
     * order event), and nobody consumes those here: a policy keeps them empty, so the broker holds
     * the counting queue's copies only and the run measures no paging of a hundred thousand
     * messages nobody reads. Publishes to them are still confirmed.
     */
    private static void keepNothingButTheCount(ChaosEnv env) throws IOException, InterruptedException {
        RabbitAdmin.run(
                "set_policy",
                "-p",
                env.vhost,
                "--apply-to",
                "queues",
                "rollout-keep-nothing",
                "^(?!" + CountingQueue.QUEUE.replace(".", "\\.") + "$)",
                "{\"max-length\":0}");
    }

    /** The backlog by COPY in one transaction, analyzed as a table that grew over time would be. */
    private static double write(ChaosEnv env, List<NewOutboxMessage> backlog) throws Exception {
        long start = System.nanoTime();
        try (Connection c = env.connection()) {
            c.setAutoCommit(false);
            Backlog.copy(c, backlog);
            try (Statement s = c.createStatement()) {
                s.execute("ANALYZE message_outbox");
            }
            c.commit();
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** Waits until each relay logs that it runs; returns what kept any from it. */
    private List<String> awaitRunning(List<RolloutRelay> wave) throws InterruptedException {
        List<String> failures = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        for (RolloutRelay r : wave) {
            try {
                r.process.awaitOutput(r.runningLine(), Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (AssertionError e) {
                failures.add(r.id + " did not start: "
                        + Fleet.tail(r.process.output()).replace('\n', ' '));
                continue;
            }
            for (String line : r.process.output().split("\n")) {
                if (r.runningLine().matcher(line).find()) {
                    r.runningAt = RolloutRelay.logTime(line, startWallMillis);
                    break;
                }
            }
        }
        return failures;
    }

    /** Waits for every one of them to exit, in parallel: each one's exit time is its own. */
    private void awaitExits(List<RolloutRelay> stopping, Duration grace) throws Exception {
        if (stopping.isEmpty()) {
            return;
        }
        ExecutorService waiters = Executors.newFixedThreadPool(stopping.size());
        try {
            List<Future<?>> exits = new ArrayList<>();
            for (RolloutRelay r : stopping) {
                exits.add(waiters.submit(() -> {
                    r.awaitExit(grace, this::now);
                    return null;
                }));
            }
            for (Future<?> f : exits) {
                f.get();
            }
        } finally {
            waiters.shutdownNow();
        }
    }

    /**
     * Waits until no row is left to publish (nothing pending, retryable or leased) and every
     * row's message has arrived, or until the bound; returns when the last id arrived, in
     * seconds, or -1 at the bound. The database is asked every two seconds until the count is
     * complete (two small partial indexes; a count of 100,000 rows every 100 ms would load it).
     */
    private double awaitDrained(ChaosEnv env, CountingQueue counter) throws InterruptedException {
        long deadline = System.nanoTime() + drainBound().toNanos();
        long nextAsk = 0;
        while (System.nanoTime() < deadline) {
            boolean complete = counter.distinct() == o.rows();
            if (complete || System.nanoTime() >= nextAsk) {
                nextAsk = System.nanoTime() + 2_000_000_000L;
                boolean unfinished = env.count("SELECT count(*) FROM (SELECT 1 FROM message_outbox"
                                + " WHERE status IN ('PENDING', 'RETRYABLE_FAILED', 'IN_PROGRESS') LIMIT 1) u")
                        > 0;
                // with nothing left to publish, an id still missing once the queue is empty never comes
                if (!unfinished && (complete || counterSettled(counter))) {
                    return seconds(counter.lastNewIdNanos());
                }
            }
            if (relays.stream().noneMatch(RolloutRelay::alive)) {
                return -1;
            }
            Thread.sleep(100);
        }
        return -1;
    }

    /** True once the counting queue holds nothing undelivered: every copy the broker has is counted. */
    private static boolean counterSettled(CountingQueue counter) {
        try {
            return counter.ready() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * After the last relay stopped, waits (at most 30 s) until the counting queue has received a
     * copy of everything the relays were confirmed: the counts are final then.
     */
    private static void awaitCounted(CountingQueue counter, long confirmed) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (counter.copiesCounted() >= confirmed && counterSettled(counter)) {
                return;
            }
            Thread.sleep(50);
        }
        System.out.println("[rollout] the counting queue received " + counter.copiesCounted() + " copies of "
                + confirmed + " confirmed within 30 s");
    }

    /** Generous: the slowest relay on a busy machine still finishes; a stuck one does not hold CI for long. */
    private Duration drainBound() {
        return Duration.ofSeconds(300 + o.rows() / 200);
    }

    private static Map<String, Long> statuses(ChaosEnv env) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map<String, Object> row :
                env.rows("SELECT status, count(*) AS n FROM message_outbox GROUP BY status ORDER BY status")) {
            out.put((String) row.get("status"), ((Number) row.get("n")).longValue());
        }
        return out;
    }

    private void collectLogs() {
        Path dir = o.out().resolve("logs");
        try {
            Files.createDirectories(dir);
            for (RolloutRelay r : relays) {
                Files.move(
                        r.process.log(), dir.resolve(r.id + ".log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            System.out.println("[rollout] could not keep the relays' logs in " + dir + ": " + e);
        }
    }

    private static int databasePort(String jdbcUrl) {
        Matcher m = java.util.regex.Pattern.compile("^jdbc:postgresql://[^/:,]+:(\\d+)/")
                .matcher(jdbcUrl);
        return m.find() ? Integer.parseInt(m.group(1)) : 5432;
    }

    private double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private double seconds(long nanos) {
        return nanos == 0 ? -1 : (nanos - startNanos) / 1e9;
    }

    private void say(String what) {
        System.out.printf(Locale.ROOT, "[rollout] %6.1fs %s%n", now(), what);
    }
}
