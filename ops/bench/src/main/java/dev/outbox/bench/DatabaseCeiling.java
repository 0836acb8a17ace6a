package dev.outbox.bench;

import com.google.inject.Guice;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.outbox.OutboxStore;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * B: what the database takes with no broker: the relay's own statements ({@link OutboxStore}:
 * the fenced claim with strict per-aggregate order, then the fenced mark), claim and mark back to
 * back, on {@code workers} threads each acting as its own relay. With statistics (the backlog is
 * analyzed in the transaction that writes it), or {@code fresh}: on a database migrated a moment
 * ago whose outbox table the planner has never seen analyzed.
 */
final class DatabaseCeiling {
    private DatabaseCeiling() {}

    static Throughput run(
            BenchEnv env, List<dev.outbox.jdbc.NewOutboxMessage> events, int workers, int batch, boolean fresh)
            throws Exception {
        env.startFrom(fresh, events);
        long total = events.size();
        AtomicLong marked = new AtomicLong();
        AtomicLong claimNanos = new AtomicLong();
        AtomicLong markNanos = new AtomicLong();
        try (Database database = env.database("bench-db-ceiling", workers + 1)) {
            OutboxStore store = Guice.createInjector(database.module()).getInstance(OutboxStore.class);
            CpuMeter.Snapshot cpu = CpuMeter.take(java.util.Set.of());
            double seconds = Parallel.run("bench-b", workers, w -> {
                String relayId = "bench-b-" + w;
                try {
                    while (marked.get() < total) {
                        long t0 = System.nanoTime();
                        List<OutboxRecord> rows = store.claim(relayId, batch, Set.of());
                        claimNanos.addAndGet(System.nanoTime() - t0);
                        if (rows.isEmpty()) {
                            // the rest is held back behind another worker's in-flight version 1
                            LockSupport.parkNanos(200_000);
                            continue;
                        }
                        long t1 = System.nanoTime();
                        int done = store.markPublished(
                                        relayId,
                                        rows.stream().map(OutboxRecord::lease).toList())
                                .size();
                        markNanos.addAndGet(System.nanoTime() - t1);
                        if (done != rows.size()) {
                            throw new IllegalStateException("marked " + done + " of " + rows.size() + " leased rows");
                        }
                        marked.addAndGet(done);
                    }
                } catch (RuntimeException e) {
                    marked.set(Long.MAX_VALUE); // stop the other workers too
                    throw e;
                }
            });
            var cpuPerRow = CpuMeter.perRow(cpu, CpuMeter.take(java.util.Set.of()), total);
            long published = env.count("status = 'PUBLISHED'");
            if (published != total) {
                throw new IllegalStateException(published + " of " + total + " rows published");
            }
            return new Throughput(
                    fresh ? "B fresh" : "B",
                    "database ceiling (relay SQL, no broker)" + (fresh ? ", fresh database" : ""),
                    String.format(
                            "%d worker(s), batch %d; per row: claim %.1f µs, mark %.1f µs (transaction"
                                    + " round trips, all workers)",
                            workers, batch, claimNanos.get() / 1e3 / total, markNanos.get() / 1e3 / total),
                    total,
                    seconds,
                    cpuPerRow);
        }
    }
}
