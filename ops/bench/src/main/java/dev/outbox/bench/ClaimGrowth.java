package dev.outbox.bench;

import com.google.inject.Guice;
import dev.outbox.jdbc.NewOutboxMessage;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.outbox.OutboxStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Does the claim stay flat as the table grows? The relay's claim (256 rows, {@link OutboxStore})
 * is timed with {@code history} published rows in the table, freshly vacuumed, and then again
 * while rows keep flowing through (insert, claim, mark: every row leaves two dead versions
 * behind) for long enough that autovacuum has to keep up. Each table configuration runs from an
 * empty table: the one the migrations set, and PostgreSQL's defaults, to show what the tuning buys.
 */
final class ClaimGrowth {
    static final int BATCH = 256;
    static final int WAVE = 10 * BATCH;

    record Sample(
            String table,
            long history,
            String phase,
            Percentiles claim,
            long deadTuples,
            long tableMiB,
            long pendingIndexKiB) {}

    private ClaimGrowth() {}

    static void section(BenchEnv env, Report report, BenchMain.Options o) throws Exception {
        long[] histories = o.quick() ? new long[] {1_000, 20_000} : new long[] {10_000, 1_000_000};
        Duration churn = o.quick() ? Duration.ofSeconds(3) : Duration.ofSeconds(90);
        String tuned = (String) env.db.scalar("SELECT coalesce(array_to_string(reloptions, ', '), '')"
                + " FROM pg_class WHERE relname = 'message_outbox'");
        List<Sample> samples = new ArrayList<>();
        env.db.execute("SELECT pg_stat_reset_single_table_counters('message_outbox'::regclass)");
        try (Database database = env.database("bench-claim-growth", 2)) {
            OutboxStore store = Guice.createInjector(database.module()).getInstance(OutboxStore.class);
            try {
                for (String table : tuned.isEmpty()
                        ? List.of("PostgreSQL defaults")
                        : List.of("migrations (" + tuned + ")", "PostgreSQL defaults")) {
                    if (table.startsWith("PostgreSQL")) {
                        resetStorage(env);
                    } else {
                        env.db.execute("ALTER TABLE message_outbox SET (" + tuned + ")");
                    }
                    for (long history : histories) {
                        samples.addAll(run(env, store, table, history, churn, o.quick() ? 3 : 20));
                    }
                }
            } finally {
                if (!tuned.isEmpty()) {
                    env.db.execute("ALTER TABLE message_outbox SET (" + tuned + ")");
                }
            }
        }
        List<List<String>> rows = new ArrayList<>();
        for (Sample s : samples) {
            rows.add(Report.row(
                    s.table(),
                    String.format("%,d", s.history()),
                    s.phase(),
                    Report.num(s.claim().p50()),
                    Report.num(s.claim().p99()),
                    Integer.toString(s.claim().count()),
                    String.format("%,d", s.deadTuples()),
                    Long.toString(s.tableMiB()),
                    Long.toString(s.pendingIndexKiB())));
        }
        report.table(
                "Growth: claim of " + BATCH + " rows (ms) against published history",
                List.of(
                        "table settings",
                        "published rows",
                        "phase",
                        "claim p50",
                        "claim p99",
                        "claims",
                        "dead tuples",
                        "table MiB",
                        "claim index KiB"),
                rows);
        Map<String, Object> upd = env.db
                .rows("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables" + " WHERE relname = 'message_outbox'")
                .get(0);
        report.text(String.format(
                "Fillfactor: of %,d row updates in this section, %,d were HOT. Every state change"
                        + " rewrites status, which the partial indexes' predicates read, so no update can be HOT, and a"
                        + " lower fillfactor (room on the page for HOT updates) would only make the table bigger; it is"
                        + " left at 100.",
                ((Number) upd.get("n_tup_upd")).longValue(), ((Number) upd.get("n_tup_hot_upd")).longValue()));
        Sample small = samples.get(0);
        Sample large = samples.get(2);
        report.text(String.format(
                "Claim p50 at %,d rows / at %,d rows (vacuumed, %s): **%s** (target <= 1.5);"
                        + " after %d s of churn: %s.",
                large.history(),
                small.history(),
                small.table(),
                Report.ratio(large.claim().p50(), small.claim().p50()),
                churn.toSeconds(),
                Report.ratio(
                        samples.get(3).claim().p50(), samples.get(1).claim().p50())));
    }

    private static List<Sample> run(
            BenchEnv env, OutboxStore store, String table, long history, Duration churn, int rounds) throws Exception {
        env.clean();
        env.db.update(
                "INSERT INTO message_outbox (aggregate_type, aggregate_id, aggregate_version, message_type,"
                        + " exchange_name, routing_key, payload, status, created_at, next_attempt_at, published_at)"
                        + " SELECT 'order', 'history-' || g, 1, 'order.created', 'orders.events', 'order.created', ?::jsonb,"
                        + " 'PUBLISHED', now() - interval '1 day', now() - interval '1 day', now() - interval '1 day'"
                        + " FROM generate_series(1, ?) g",
                Backlog.one().payload(),
                history);
        env.db.execute("VACUUM ANALYZE message_outbox");
        List<Sample> out = new ArrayList<>();
        long[] fresh = new long[rounds * (WAVE / BATCH)];
        int n = 0;
        for (int r = 0; r < rounds; r++) {
            n = wave(env, store, fresh, n);
        }
        out.add(sample(env, table, history, "vacuumed", java.util.Arrays.copyOf(fresh, n)));
        long end = System.nanoTime() + churn.toNanos();
        long lastThird = end - churn.toNanos() / 3;
        List<Long> late = new ArrayList<>();
        long[] buf = new long[WAVE / BATCH + 1];
        while (System.nanoTime() < end) {
            boolean record = System.nanoTime() >= lastThird;
            int k = wave(env, store, buf, 0);
            if (record) {
                for (int i = 0; i < k; i++) {
                    late.add(buf[i]);
                }
            }
        }
        out.add(sample(
                env,
                table,
                history,
                "after " + churn.toSeconds() + " s churn",
                late.stream().mapToLong(Long::longValue).toArray()));
        System.out.printf(
                "  growth %-40s %,10d rows: vacuumed p50 %.2f ms, churned p50 %.2f ms%n",
                table, history, out.get(0).claim().p50(), out.get(1).claim().p50());
        return out;
    }

    /** One wave: {@link #WAVE} new pending rows, claimed and marked until gone; claim times go to {@code into}. */
    private static int wave(BenchEnv env, OutboxStore store, long[] into, int n) throws Exception {
        List<NewOutboxMessage> events = Backlog.events(WAVE);
        env.backlog(events);
        int left = events.size();
        while (left > 0) {
            long t0 = System.nanoTime();
            List<OutboxRecord> rows = store.claim("bench-growth", BATCH, Set.of());
            long took = System.nanoTime() - t0;
            if (n < into.length) {
                into[n++] = took;
            }
            if (rows.isEmpty()) {
                throw new IllegalStateException(left + " rows left but the claim found none");
            }
            store.markPublished(
                    "bench-growth", rows.stream().map(OutboxRecord::lease).toList());
            left -= rows.size();
        }
        return n;
    }

    private static Sample sample(BenchEnv env, String table, long history, String phase, long[] claims) {
        Map<String, Object> stats = env.db
                .rows("SELECT n_dead_tup,"
                        + " pg_table_size('message_outbox') / (1024 * 1024) AS table_mib,"
                        + " pg_relation_size('message_outbox_pending_idx') / 1024 AS idx_kib"
                        + " FROM pg_stat_user_tables WHERE relname = 'message_outbox'")
                .get(0);
        return new Sample(
                table,
                history,
                phase,
                Percentiles.ofNanos(claims),
                ((Number) stats.get("n_dead_tup")).longValue(),
                ((Number) stats.get("table_mib")).longValue(),
                ((Number) stats.get("idx_kib")).longValue());
    }

    private static void resetStorage(BenchEnv env) {
        env.db.execute("ALTER TABLE message_outbox RESET (fillfactor, autovacuum_vacuum_scale_factor,"
                + " autovacuum_vacuum_threshold, autovacuum_vacuum_insert_scale_factor,"
                + " autovacuum_vacuum_insert_threshold, autovacuum_analyze_scale_factor,"
                + " autovacuum_analyze_threshold, autovacuum_vacuum_cost_delay, autovacuum_vacuum_cost_limit)");
    }
}
