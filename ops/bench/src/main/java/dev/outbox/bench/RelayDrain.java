package dev.outbox.bench;

import dev.outbox.persistence.outbox.NewOutboxMessage;
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
 * The relays start first and idle; the backlog then lands in one commit, so the clock runs from
 * that commit to the last row marked {@code PUBLISHED} ({@code max(published_at)}), with no JVM
 * start-up in it. Each relay's resident memory is sampled while it drains.
 */
final class RelayDrain {
    /** A run's throughput and the relays' memory. */
    record Result(Throughput throughput, double peakRssMiB, double maxSampledRssMiB) {
    }

    private RelayDrain() {
    }

    static Result run(BenchEnv env, List<NewOutboxMessage> events, int processes, Map<String, String> relaySettings)
            throws Exception {
        env.clean();
        List<BenchProcess> relays = new ArrayList<>();
        try {
            for (int i = 0; i < processes; i++) {
                Map<String, String> processEnv = new LinkedHashMap<>(env.processEnv());
                processEnv.putAll(relaySettings);
                processEnv.put("OUTBOX_RELAY_ID", "bench-relay-" + i);
                relays.add(BenchProcess.start("relay-" + i, "dev.outbox.relay.RelayMain", processEnv));
            }
            for (BenchProcess r : relays) {
                r.awaitOutput(Pattern.compile("relay bench-relay-\\d+ running"), Duration.ofSeconds(60));
            }
            Instant committed = env.backlog(events);
            double maxRss = 0;
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while (env.count("status = 'PUBLISHED'") < events.size()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("relays did not drain " + events.size() + " rows in 10 minutes: "
                            + env.count("status = 'PUBLISHED'") + " published");
                }
                for (BenchProcess r : relays) {
                    maxRss = Math.max(maxRss, r.rssMiB());
                }
                Thread.sleep(100);
            }
            Instant last = ((Timestamp) env.db.scalar("SELECT max(published_at) FROM message_outbox")).toInstant();
            double peak = relays.stream().mapToDouble(BenchProcess::peakRssMiB).max().orElse(-1);
            for (BenchProcess r : relays) {
                int code = r.stop(Duration.ofSeconds(30));
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
            return new Result(new Throughput("R" + processes, "relay-worker, " + processes + " process(es)", config,
                    events.size(), seconds), peak, maxRss);
        } finally {
            relays.forEach(BenchProcess::close);
        }
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
