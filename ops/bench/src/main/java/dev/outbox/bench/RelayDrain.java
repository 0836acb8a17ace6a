package dev.outbox.bench;

import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.testkit.JavaProcess;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * R: the real relay-worker ({@code dev.outbox.relay.RelayMain}, one JVM each) draining a backlog.
 * The relays start first and drain a warm-up backlog; the measured backlog then lands in one
 * commit, so the clock runs from that commit to the last row marked {@code PUBLISHED}
 * ({@code max(published_at)}), with neither JVM start-up nor JIT warm-up in it. The backlog is
 * analyzed in its own transaction, or with {@code fresh} lands on a database migrated just before
 * the relays started, whose outbox table has never been analyzed: a new deployment's first burst. Each relay's resident memory is sampled while it drains.
 */
final class RelayDrain {
    /** A run's throughput and the relays' memory. */
    record Result(Throughput throughput, double peakRssMiB, double maxSampledRssMiB) {}

    static final int WARMUP_ROWS = 30_000;

    private RelayDrain() {}

    static Result run(
            BenchEnv env,
            List<NewOutboxMessage> events,
            int processes,
            Map<String, String> relaySettings,
            boolean fresh)
            throws Exception {
        return run(env, events, processes, relaySettings, fresh, false);
    }

    /** The slot scenario C's relays read (dropped after the run). */
    static final String CDC_SLOT = "outbox_bench";

    /**
     * With {@code cdc}: scenario C, the relays in CDC mode ({@code OUTBOX_RELAY_MODE=cdc}) on a slot
     * that exists before the warm-up, so the measured backlog comes through the stream.
     */
    static Result run(
            BenchEnv env,
            List<NewOutboxMessage> events,
            int processes,
            Map<String, String> relaySettings,
            boolean fresh,
            boolean cdc)
            throws Exception {
        if (cdc) {
            Map<String, String> withCdc = new LinkedHashMap<>(relaySettings);
            withCdc.put("OUTBOX_RELAY_MODE", "cdc");
            withCdc.put("OUTBOX_RELAY_CDC_SLOT", CDC_SLOT);
            relaySettings = withCdc;
            dropSlot(env, CDC_SLOT);
        }
        List<JavaProcess> relays = new ArrayList<>();
        try {
            if (fresh) {
                env.fresh();
                // the warm-up must not leave statistics behind: no auto-analyze until the backlog lands
                env.autovacuum(false);
            } else {
                env.clean();
            }
            startRelays(env, processes, relaySettings, cdc, relays);
            // A relay runs for weeks; its first seconds are spent compiling its hot paths (the JIT
            // took 5 of 9 CPU-seconds of a cold 100k-row drain). Warm it up, then measure.
            List<NewOutboxMessage> warmup = Backlog.events(Math.min(events.size(), WARMUP_ROWS));
            write(env, warmup, false, cdc);
            awaitDrained(env, warmup.size(), relays);
            env.clean();
            if (fresh) {
                env.requireNoStatistics();
                // TRUNCATE left a table the planner has never analyzed; autovacuum may analyze it
                // from now on, as it would in a new deployment
                env.autovacuum(true);
            }
            // with statistics: analyzed in the backlog's own transaction, before any claim sees it
            Instant committed = write(env, events, !fresh, cdc);
            java.util.Set<Long> pids = new java.util.HashSet<>();
            relays.forEach(r -> pids.add(r.pid()));
            CpuMeter.Snapshot cpu = CpuMeter.take(pids);
            double maxRss = awaitDrained(env, events.size(), relays);
            var cpuPerRow = CpuMeter.perRow(cpu, CpuMeter.take(pids), events.size());
            Instant last = ((Timestamp) env.db.scalar("SELECT max(published_at) FROM message_outbox")).toInstant();
            double peak =
                    relays.stream().mapToDouble(BenchProcess::peakRssMiB).max().orElse(-1);
            for (JavaProcess r : relays) {
                int code = r.terminate(Duration.ofSeconds(30));
                if (code != 0) {
                    throw new IllegalStateException("relay exited " + code + ":\n" + r.output());
                }
            }
            long queued = env.broker.messageCount(BenchEnv.QUEUE);
            if (queued < events.size()) {
                throw new IllegalStateException("queue holds " + queued + " messages, expected " + events.size());
            }
            double seconds = Duration.between(committed, last).toNanos() / 1e9;
            String config = processes + " process(es) x " + relaySettings.getOrDefault("OUTBOX_RELAY_PUBLISHERS", "1")
                    + " publisher(s), " + describe(relaySettings);
            return new Result(
                    new Throughput(
                            (cdc ? "C" : "R") + processes + (fresh ? " fresh" : ""),
                            (cdc ? "relay-worker in CDC mode (logical replication slot), " : "relay-worker, ")
                                    + processes + " process(es)" + (fresh ? ", fresh database" : ""),
                            config,
                            events.size(),
                            seconds,
                            cpuPerRow),
                    peak,
                    maxRss);
        } finally {
            relays.forEach(JavaProcess::close);
            if (cdc) {
                dropSlot(env, CDC_SLOT);
            }
        }
    }

    /**
     * Starts the relays into {@code relays} and waits until each runs; with {@code cdc}, until one
     * of them reads the slot: from then on every row is streamed.
     */
    private static void startRelays(
            BenchEnv env, int processes, Map<String, String> relaySettings, boolean cdc, List<JavaProcess> relays)
            throws Exception {
        for (int i = 0; i < processes; i++) {
            Map<String, String> processEnv = new LinkedHashMap<>(env.processEnv());
            processEnv.putAll(relaySettings);
            processEnv.put("OUTBOX_RELAY_ID", "bench-relay-" + i);
            relays.add(BenchProcess.start("relay-" + i, "dev.outbox.relay.RelayMain", processEnv));
        }
        for (JavaProcess r : relays) {
            r.awaitOutput(Pattern.compile("relay bench-relay-\\d+ running"), Duration.ofSeconds(60));
        }
        if (cdc) {
            // one of them reads the slot (the others stand by): from here every row is streamed
            relays.get(0)
                    .awaitOutput(
                            Pattern.compile("reads replication slot " + CDC_SLOT + "|created replication slot"),
                            Duration.ofSeconds(60));
            long slotDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (env.db.count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active", CDC_SLOT)
                            == 0
                    && System.nanoTime() < slotDeadline) {
                Thread.sleep(50);
            }
        }
    }

    /**
     * The backlog in one transaction; for CDC in transactions of {@link BacklogDrain#CHUNK} rows (the
     * relay hands a transaction larger than OUTBOX_RELAY_CDC_MAX_TRANSACTION_ROWS, 10,000 by default,
     * to its retry path: C would measure polling), timed from the first commit.
     */
    private static Instant write(BenchEnv env, List<NewOutboxMessage> rows, boolean analyze, boolean cdc)
            throws java.sql.SQLException {
        return cdc ? env.backlogInChunks(rows, BacklogDrain.CHUNK, analyze) : env.backlog(rows, analyze);
    }

    /** Drops a benchmark's slot once no session reads it (the relays that read it have stopped). */
    static void dropSlot(BenchEnv env, String slot) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (env.db.count("SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active", slot) > 0
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        env.db.rows(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?"
                        + " AND NOT active",
                slot);
    }

    /**
     * Waits until nothing is pending or leased, asking only the two small partial indexes (a
     * count of published rows every 100 ms would itself cost the database a noticeable share).
     *
     * @return the largest resident set size of any relay seen meanwhile, MiB
     */
    private static double awaitDrained(BenchEnv env, int rows, List<JavaProcess> relays) throws InterruptedException {
        double maxRss = 0;
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (Boolean.TRUE.equals(env.db.scalar("SELECT EXISTS (SELECT 1 FROM message_outbox"
                + " WHERE status IN ('PENDING', 'RETRYABLE_FAILED')) OR EXISTS (SELECT 1 FROM message_outbox"
                + " WHERE status = 'IN_PROGRESS')"))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("relays did not drain " + rows + " rows in 10 minutes");
            }
            for (JavaProcess r : relays) {
                maxRss = Math.max(maxRss, BenchProcess.rssMiB(r));
            }
            Thread.sleep(100);
        }
        long published = env.count("status = 'PUBLISHED'");
        if (published != rows) {
            throw new IllegalStateException(published + " of " + rows + " rows published; the rest are "
                    + env.db.rows("SELECT status, count(*) FROM message_outbox GROUP BY status"));
        }
        return maxRss;
    }

    private static String describe(Map<String, String> s) {
        List<String> parts = new ArrayList<>();
        s.forEach((k, v) -> {
            if (!k.equals("OUTBOX_RELAY_PUBLISHERS")) {
                parts.add(k.replace("OUTBOX_RELAY_", "").toLowerCase(java.util.Locale.ROOT) + "=" + v);
            }
        });
        return parts.isEmpty() ? "defaults" : String.join(", ", parts);
    }
}
