package dev.outbox.bench;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outbox.config.Settings;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.relay.RelayApp;
import dev.outbox.relay.RelayConfig;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Commit-to-publish and commit-to-consume at fixed offered loads, with the relay woken by
 * LISTEN/NOTIFY, with the relay only polling (and the notification trigger disabled, so the
 * writers do not pay for notifications nobody listens to), and with the relay reading the
 * write-ahead log (CDC mode, notification trigger disabled too). Open loop: transaction {@code k} is due at
 * {@code start + k / rate} whatever happened to the ones before, on a pool of producer
 * connections; each is one business transaction that inserts one outbox row and commits. The
 * commit is timed when {@code commit()} returns; the publish when the broker's confirm reaches
 * the relay (the relay's confirm tap); the consume when a consumer on the queue receives it. The
 * relay is the real relay code ({@link RelayApp}) in this JVM, so all three clocks are one.
 */
final class LatencyRun {
    static final int PRODUCERS = 16;

    /** @param broker the part of {@code publish} between handing the message to the broker and its confirm */
    /** How the relay learns of a new row. */
    enum Wake {
        NOTIFY("LISTEN/NOTIFY"),
        POLL("poll only"),
        CDC("CDC (WAL stream)");

        final String label;

        Wake(String label) {
            this.label = label;
        }
    }

    /** The slot the CDC runs read (created before each run, dropped after it). */
    static final String CDC_SLOT = "outbox_bench_latency";

    record Result(
            Wake wake,
            int offered,
            double achieved,
            Percentiles publish,
            Percentiles broker,
            Percentiles consume,
            int missing,
            Percentiles relay,
            int slow,
            int slowWindows,
            RunConditions.Observed conditions) {}

    /** A sample slower than this counts as slow in the per-run table: the target p99. */
    static final long SLOW_NANOS = 25_000_000L;

    private LatencyRun() {}

    static void section(BenchEnv env, Report report, BenchMain.Options o) throws Exception {
        int[] loads = o.loads();
        Duration warmup = o.quick() ? Duration.ofSeconds(1) : Duration.ofSeconds(3);
        Duration measure = o.quick() ? Duration.ofSeconds(2) : Duration.ofSeconds(15);
        // the broker's confirm latency varies from run to run on a shared machine: each point runs
        // several times and the table shows the run with the median p99, and the spread
        int repeats = o.latencyRuns();
        List<Result> results = new ArrayList<>();
        List<String> spreads = new ArrayList<>();
        List<List<String>> everyRun = new ArrayList<>();
        List<Wake> modes = new ArrayList<>();
        for (Wake w : Wake.values()) {
            if (o.latencyModes().contains(w.name().toLowerCase(java.util.Locale.ROOT))) {
                modes.add(w);
            }
        }
        // The first run in a JVM also measured the JIT compiling the relay's and the producers' hot
        // paths (its commit-to-hand-over p99 was twice the later runs'): one run, not reported,
        // warms the JVM up first.
        if (!o.quick() && !modes.isEmpty()) {
            Result discarded = run(env, o, loads[0], modes.get(0), warmup, measure);
            System.out.printf(
                    "  latency warm-up run (not reported): publish p99 %.1f ms%n",
                    discarded.publish().p99());
        }
        for (Wake wake : modes) {
            for (int load : loads) {
                List<Result> runs = new ArrayList<>();
                for (int i = 0; i < repeats; i++) {
                    runs.add(run(env, o, load, wake, warmup, measure));
                }
                for (int i = 0; i < runs.size(); i++) {
                    Result x = runs.get(i);
                    everyRun.add(Report.row(
                            x.wake().label,
                            Integer.toString(load),
                            Integer.toString(i + 1),
                            Report.num(x.publish().p50()),
                            Report.num(x.publish().p99()),
                            Report.num(x.publish().max()),
                            Report.num(x.relay().p99()),
                            Report.num(x.broker().p99()),
                            Report.num(x.broker().max()),
                            x.slow() + " in " + x.slowWindows(),
                            x.conditions().gcPauses() + " / " + x.conditions().gcMaxMs(),
                            Long.toString(x.conditions().checkpoints()),
                            x.conditions().autovacuums() + " / "
                                    + x.conditions().autoanalyzes()));
                    System.out.printf(
                            "    run %d: publish p99 %.1f ms (relay part p99 %.1f, broker p99 %.1f max %.1f);"
                                    + " %d samples > %d ms in %d windows of 100 ms; %s%n",
                            i + 1,
                            x.publish().p99(),
                            x.relay().p99(),
                            x.broker().p99(),
                            x.broker().max(),
                            x.slow(),
                            SLOW_NANOS / 1_000_000,
                            x.slowWindows(),
                            x.conditions().describe());
                }
                runs.sort(java.util.Comparator.comparingDouble(x -> x.publish().p99()));
                Result r = runs.get(runs.size() / 2);
                spreads.add(runs.stream()
                        .map(x -> Report.num(x.publish().p99()))
                        .collect(java.util.stream.Collectors.joining(" / ")));
                System.out.printf(
                        "  latency %s %5d ev/s: publish p50 %.1f p99 %.1f max %.1f ms (broker p99 %.1f);"
                                + " consume p99 %.1f ms%n",
                        wake,
                        load,
                        r.publish().p50(),
                        r.publish().p99(),
                        r.publish().max(),
                        r.broker().p99(),
                        r.consume().p99());
                results.add(r);
            }
        }
        String poll = Settings.format(RelayConfig.from(env.settings(o.relay())).pollInterval());
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            rows.add(Report.row(
                    label(r.wake(), poll),
                    Integer.toString(r.offered()),
                    Report.num(r.achieved()),
                    Report.num(r.publish().p50()),
                    Report.num(r.publish().p99()),
                    Report.num(r.publish().max()),
                    Report.num(r.broker().p50()),
                    Report.num(r.broker().p99()),
                    Report.num(r.consume().p50()),
                    Report.num(r.consume().p99()),
                    Report.num(r.consume().max()),
                    Integer.toString(r.publish().count()),
                    Integer.toString(r.missing()),
                    spreads.get(i)));
        }
        report.table(
                "Latency: commit to broker confirm, commit to consumer (ms), " + measure.toSeconds()
                        + " s per load after " + warmup.toSeconds() + " s warm-up, median of " + repeats + " runs",
                List.of(
                        "relay wake-up",
                        "offered ev/s",
                        "achieved ev/s",
                        "publish p50",
                        "publish p99",
                        "publish max",
                        "of which broker p50",
                        "broker p99",
                        "consume p50",
                        "consume p99",
                        "consume max",
                        "samples",
                        "missing",
                        "publish p99 of each run"),
                rows);
        report.text("publish = commit to broker confirm; broker = the part of it from handing the message to the"
                + " broker to its confirm (RabbitMQ confirms a persistent message once it is written to disk, and"
                + " batches those writes); consume = commit to delivery to a consumer of the queue.");
        report.table(
                "Every latency run: commit-to-publish (ms), what made the tail, and what else ran meanwhile",
                List.of(
                        "relay wake-up",
                        "offered ev/s",
                        "run",
                        "publish p50",
                        "publish p99",
                        "publish max",
                        "commit to hand-over p99",
                        "broker p99",
                        "broker max",
                        "samples > " + SLOW_NANOS / 1_000_000 + " ms in n windows of 100 ms",
                        "GC pauses / longest ms",
                        "checkpoints",
                        "autovacuum / analyze"),
                everyRun);
        report.text("commit to hand-over = from the business commit to the relay handing the message to the broker"
                + " (wake-up, claim, mapping); broker = hand-over to confirm. A tail made by one stall shows as many"
                + " slow samples in few 100 ms windows; GC pauses are this JVM's (the relay runs in it).");
        List<String> cats = new ArrayList<>();
        for (int load : loads) {
            cats.add(load + " ev/s");
        }
        double[][] p99 = new double[modes.size()][loads.length];
        List<String> series = new ArrayList<>();
        for (int m = 0; m < modes.size(); m++) {
            series.add(label(modes.get(m), poll));
            for (int i = 0; i < loads.length; i++) {
                p99[m][i] = results.get(m * loads.length + i).publish().p99();
            }
        }
        report.groupedChart("latency.png", "Commit-to-publish p99 (ms)", "ms", series, cats, p99);
    }

    private static String label(Wake wake, String poll) {
        return wake == Wake.POLL ? "poll only (" + poll + ")" : wake.label;
    }

    static Result run(BenchEnv env, BenchMain.Options o, int rate, Wake wake, Duration warmup, Duration measure)
            throws Exception {
        boolean listen = wake == Wake.NOTIFY;
        env.clean();
        int total = (int) (rate * (warmup.toMillis() + measure.toMillis()) / 1000);
        List<NewOutboxMessage> events = Backlog.placed(total);
        long[] committedAt = new long[total];
        Map<UUID, Long> confirmedAt = new ConcurrentHashMap<>(total * 2);
        Map<UUID, Long> consumedAt = new ConcurrentHashMap<>(total * 2);
        Map<UUID, Long> brokerTook = new ConcurrentHashMap<>(total * 2);
        Map<String, String> relaySettings = new HashMap<>(o.relay());
        relaySettings.put("OUTBOX_RELAY_LISTEN", Boolean.toString(listen));
        relaySettings.put("OUTBOX_RELAY_ID", "bench-latency");
        if (wake == Wake.CDC) {
            relaySettings.put("OUTBOX_RELAY_MODE", "cdc");
            relaySettings.put("OUTBOX_RELAY_CDC_SLOT", CDC_SLOT);
            RelayDrain.dropSlot(env, CDC_SLOT);
        }
        // idle polling means no notifications at all: the business transactions do not send them either
        env.notifyTrigger(listen);
        try (RunConditions conditions = new RunConditions(env);
                RelayApp relay = RelayApp.start(env.settings(relaySettings));
                Connection consumerConnection = env.broker.connectionFactory().newConnection("bench-consumer")) {
            if (wake == Wake.CDC) {
                // the rows must come through the stream: the producers start once the slot is read
                long readingDeadline =
                        System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (!relay.cdc().reading()) {
                    if (System.nanoTime() > readingDeadline) {
                        throw new IllegalStateException("the CDC relay did not read its slot within 30 s");
                    }
                    Thread.sleep(20);
                }
            }
            relay.relay().stats().tapConfirms((id, brokerNanos) -> {
                confirmedAt.put(id, System.nanoTime());
                brokerTook.put(id, brokerNanos);
            });
            Channel consumer = consumerConnection.createChannel();
            consumer.basicQos(1_000);
            consumer.basicConsume(
                    BenchEnv.QUEUE,
                    true,
                    (tag, d) -> consumedAt.put(UUID.fromString(d.getProperties().getMessageId()), System.nanoTime()),
                    tag -> {});
            long start = System.nanoTime() + 200_000_000L;
            long interval = 1_000_000_000L / rate;
            AtomicInteger next = new AtomicInteger();
            conditions.start();
            Parallel.run("bench-producer", PRODUCERS, p -> {
                try (java.sql.Connection c = env.connect();
                        PreparedStatement insert = c.prepareStatement(INSERT)) {
                    for (int k = next.getAndIncrement(); k < total; k = next.getAndIncrement()) {
                        long wait = start + k * interval - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        bind(insert, events.get(k));
                        insert.executeUpdate();
                        c.commit();
                        committedAt[k] = System.nanoTime();
                    }
                }
            });
            long measureFrom = start + warmup.toNanos();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while ((consumedAt.size() < total || confirmedAt.size() < total) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            RunConditions.Observed observed = conditions.observe();
            long[] relayPart = new long[total];
            java.util.Set<Long> slowWindows = new java.util.HashSet<>();
            int slow = 0;
            long[] publish = new long[total];
            long[] consume = new long[total];
            long[] broker = new long[total];
            int nb = 0;
            int np = 0;
            int nc = 0;
            int measured = 0;
            int missing = 0;
            long lastCommit = measureFrom;
            for (int k = 0; k < total; k++) {
                if (start + k * interval < measureFrom) {
                    continue;
                }
                measured++;
                lastCommit = Math.max(lastCommit, committedAt[k]);
                UUID id = events.get(k).id();
                Long confirmed = confirmedAt.get(id);
                Long consumed = consumedAt.get(id);
                if (confirmed == null || consumed == null) {
                    missing++;
                }
                if (confirmed != null) {
                    long took = confirmed - committedAt[k];
                    relayPart[np] = took - brokerTook.get(id);
                    publish[np++] = took;
                    broker[nb++] = brokerTook.get(id);
                    if (took > SLOW_NANOS) {
                        slow++;
                        slowWindows.add((committedAt[k] - start) / 100_000_000L);
                    }
                }
                if (consumed != null) {
                    consume[nc++] = consumed - committedAt[k];
                }
            }
            double achieved = measured / ((lastCommit - measureFrom) / 1e9);
            return new Result(
                    wake,
                    rate,
                    achieved,
                    Percentiles.ofNanos(java.util.Arrays.copyOf(publish, np)),
                    Percentiles.ofNanos(java.util.Arrays.copyOf(broker, nb)),
                    Percentiles.ofNanos(java.util.Arrays.copyOf(consume, nc)),
                    missing,
                    Percentiles.ofNanos(java.util.Arrays.copyOf(relayPart, np)),
                    slow,
                    slowWindows.size(),
                    observed);
        } finally {
            env.notifyTrigger(true);
            if (wake == Wake.CDC) {
                RelayDrain.dropSlot(env, CDC_SLOT);
            }
        }
    }

    /** The mapper's insert ({@code OutboxMapper.xml}), as one business transaction would run it. */
    static final String INSERT = "INSERT INTO message_outbox (id, aggregate_type, aggregate_id, aggregate_version,"
            + " message_type, message_version, exchange_name, routing_key, payload, headers, status, created_at,"
            + " next_attempt_at, correlation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), CAST(? AS jsonb),"
            + " 'PENDING', clock_timestamp(), now(), ?)";

    static void bind(PreparedStatement s, NewOutboxMessage m) throws java.sql.SQLException {
        s.setObject(1, m.id());
        s.setString(2, m.aggregateType());
        s.setString(3, m.aggregateId());
        s.setObject(4, m.aggregateVersion(), java.sql.Types.BIGINT);
        s.setString(5, m.messageType());
        s.setInt(6, m.messageVersion());
        s.setString(7, m.exchangeName());
        s.setString(8, m.routingKey());
        s.setString(9, m.payload());
        s.setString(10, m.headers());
        s.setString(11, m.correlationId());
    }
}
