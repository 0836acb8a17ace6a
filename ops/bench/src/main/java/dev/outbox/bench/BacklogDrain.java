package dev.outbox.bench;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.testkit.JavaProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A large backlog written while no relay runs, then drained by one relay process: polling (R)
 * beside CDC (C). The backlog is written in transactions of {@link #CHUNK} rows, as a burst of
 * business transactions would. For C the slot exists before the relay goes away (its reader
 * stopped cleanly), so the slot keeps every byte of WAL written meanwhile: the table reports how much,
 * against what the same rows cost in WAL without a slot. A consumer empties the queue as the relay
 * fills it (a broker holding a million messages would measure the broker's paging, not the relay).
 */
final class BacklogDrain {
    static final int CHUNK = 10_000;
    static final String SLOT = "outbox_bench_backlog";

    record Result(
            String scenario,
            int rows,
            double writeSeconds,
            double walWrittenMiB,
            double walRetainedMiB,
            double drainSeconds,
            double consumedSeconds,
            double dbCpuPerRow,
            double relayCpuPerRow,
            double peakRssMiB) {}

    private BacklogDrain() {}

    static void section(BenchEnv env, Report report, BenchMain.Options o) throws Exception {
        int rows = o.backlogRows();
        List<Result> results = new ArrayList<>();
        for (boolean cdc : new boolean[] {false, true}) {
            Result r = run(env, rows, o.relay(), cdc);
            System.out.printf(
                    "  backlog %s: %d rows written in %.1f s (WAL %.0f MiB, kept by the slot %.0f MiB),"
                            + " drained in %.1f s (%.0f rows/s), consumed by %.1f s%n",
                    r.scenario(),
                    r.rows(),
                    r.writeSeconds(),
                    r.walWrittenMiB(),
                    r.walRetainedMiB(),
                    r.drainSeconds(),
                    r.rows() / r.drainSeconds(),
                    r.consumedSeconds());
            results.add(r);
        }
        List<List<String>> table = new ArrayList<>();
        for (Result r : results) {
            table.add(Report.row(
                    r.scenario(),
                    Integer.toString(r.rows()),
                    Report.num(r.writeSeconds()),
                    Report.num(r.walWrittenMiB()),
                    r.scenario().startsWith("C") ? Report.num(r.walRetainedMiB()) : "none (no slot)",
                    Report.num(r.drainSeconds()),
                    Report.num(r.rows() / r.drainSeconds()),
                    Report.num(r.consumedSeconds()),
                    Report.num(r.dbCpuPerRow()),
                    Report.num(r.relayCpuPerRow()),
                    Report.num(r.peakRssMiB())));
        }
        report.table(
                "Backlog: " + rows + " rows written while no relay ran, then drained by one relay process",
                List.of(
                        "scenario",
                        "rows",
                        "written in s",
                        "WAL written MiB",
                        "WAL kept by the slot MiB",
                        "drained in s",
                        "rows/s",
                        "consumed by s",
                        "database CPU µs/row",
                        "relay CPU µs/row",
                        "relay peak RSS MiB"),
                table);
        report.text("Written in transactions of " + CHUNK + " rows by COPY. WAL written = the WAL position's"
                + " advance while the backlog was written; kept by the slot = what the slot held back when the"
                + " relay started (pg_current_wal_lsn() - restart_lsn): the disk a stopped CDC relay costs."
                + " Drained = relay start to the last row PUBLISHED; consumed = relay start to the last message"
                + " received by a consumer of the queue.");
    }

    static Result run(BenchEnv env, int rows, Map<String, String> relay, boolean cdc) throws Exception {
        env.clean();
        Map<String, String> settings = new LinkedHashMap<>(env.processEnv());
        settings.putAll(relay);
        settings.put("OUTBOX_RELAY_ID", "bench-backlog");
        if (cdc) {
            settings.put("OUTBOX_RELAY_MODE", "cdc");
            settings.put("OUTBOX_RELAY_CDC_SLOT", SLOT);
            RelayDrain.dropSlot(env, SLOT);
            // the slot is made by a relay that reads it and stops cleanly, as a fleet that went away would
            try (JavaProcess first =
                    BenchProcess.start("relay-backlog-first", "dev.outbox.relay.RelayMain", settings)) {
                first.awaitOutput(
                        Pattern.compile("reads replication slot " + SLOT + "|created replication slot"),
                        Duration.ofSeconds(60));
                int code = first.terminate(Duration.ofSeconds(30));
                if (code != 0) {
                    throw new IllegalStateException("relay exited " + code + ":\n" + first.output());
                }
            }
        }
        try {
            return drain(env, rows, settings, cdc);
        } finally {
            if (cdc) {
                RelayDrain.dropSlot(env, SLOT);
            }
        }
    }

    private static Result drain(BenchEnv env, int rows, Map<String, String> settings, boolean cdc) throws Exception {
        String walBefore = (String) env.db.scalar("SELECT pg_current_wal_lsn()::text");
        long writeStart = System.nanoTime();
        try (java.sql.Connection c = env.connect()) {
            for (int written = 0; written < rows; written += CHUNK) {
                List<NewOutboxMessage> chunk = Backlog.events(Math.min(CHUNK, rows - written));
                Backlog.copy(c, chunk);
                c.commit();
            }
        }
        double writeSeconds = (System.nanoTime() - writeStart) / 1e9;
        double walWritten = mib(env.db.scalar("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)", walBefore));
        double walRetained = cdc
                ? mib(env.db.scalar(
                        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn) FROM pg_replication_slots"
                                + " WHERE slot_name = ?",
                        SLOT))
                : 0;
        Set<UUID> consumed = ConcurrentHashMap.newKeySet(rows * 2);
        long[] lastConsumed = {0};
        try (Connection broker = env.broker.connectionFactory().newConnection("bench-backlog-consumer")) {
            Channel ch = broker.createChannel();
            ch.basicQos(2_000);
            ch.basicConsume(
                    BenchEnv.QUEUE,
                    true,
                    (tag, d) -> {
                        if (consumed.add(UUID.fromString(d.getProperties().getMessageId()))) {
                            lastConsumed[0] = System.nanoTime();
                        }
                    },
                    tag -> {});
            long start = System.nanoTime();
            try (JavaProcess relay = BenchProcess.start("relay-backlog", "dev.outbox.relay.RelayMain", settings)) {
                CpuMeter.Snapshot before = CpuMeter.take(Set.of(relay.pid()));
                double peak = awaitPublished(env, rows, relay, start);
                double drainSeconds = (System.nanoTime() - start) / 1e9;
                Map<String, Double> cpu = CpuMeter.perRow(before, CpuMeter.take(Set.of(relay.pid())), rows);
                int code = relay.terminate(Duration.ofSeconds(30));
                if (code != 0) {
                    throw new IllegalStateException("relay exited " + code + ":\n" + relay.output());
                }
                long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
                while (consumed.size() < rows && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                if (consumed.size() < rows) {
                    throw new IllegalStateException("consumed " + consumed.size() + " of " + rows + " messages");
                }
                return new Result(
                        (cdc ? "C1" : "R1") + " backlog",
                        rows,
                        writeSeconds,
                        walWritten,
                        walRetained,
                        drainSeconds,
                        (lastConsumed[0] - start) / 1e9,
                        cpu.get("database"),
                        cpu.get("relay"),
                        peak);
            }
        }
    }

    /** Waits until every row is PUBLISHED (nothing else may be left), returns the relay's peak RSS. */
    private static double awaitPublished(BenchEnv env, int rows, JavaProcess relay, long start)
            throws InterruptedException {
        // generous: a million rows at a few hundred rows/s would still finish
        long deadline = start + Duration.ofSeconds(600 + rows / 200).toNanos();
        while (Boolean.TRUE.equals(env.db.scalar("SELECT EXISTS (SELECT 1 FROM message_outbox"
                + " WHERE status IN ('PENDING', 'RETRYABLE_FAILED', 'IN_PROGRESS'))"))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the relay did not drain " + rows + " rows in time:\n" + relay.output());
            }
            if (!relay.isAlive()) {
                throw new IllegalStateException("the relay ended:\n" + relay.output());
            }
            Thread.sleep(200);
        }
        long published = env.count("status = 'PUBLISHED'");
        if (published != rows) {
            throw new IllegalStateException(published + " of " + rows + " rows published; the rest are "
                    + env.db.rows("SELECT status, count(*) FROM message_outbox GROUP BY status"));
        }
        return BenchProcess.peakRssMiB(relay);
    }

    private static double mib(Object bytes) {
        return ((Number) bytes).doubleValue() / (1024.0 * 1024.0);
    }
}
