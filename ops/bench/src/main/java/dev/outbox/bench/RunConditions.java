package dev.outbox.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * What else happened on the machine while a latency run was measured, so a bad run can be told
 * apart from a bad relay: garbage-collection pauses of this JVM (the in-process relay's), the
 * database's checkpoints and the autovacuum / auto-analyze runs on the outbox table.
 */
final class RunConditions implements AutoCloseable {
    /** One collection: when it ended (JVM uptime, ms) and how long it took (ms). */
    private record Gc(long endUptimeMs, long durationMs, String name) {}

    /** Counted over one run. */
    record Observed(int gcPauses, long gcTotalMs, long gcMaxMs, long checkpoints, long autovacuums, long autoanalyzes) {
        String describe() {
            return String.format(
                    "GC %d pauses, %d ms total, longest %d ms; checkpoints %d; autovacuum %d;" + " auto-analyze %d",
                    gcPauses, gcTotalMs, gcMaxMs, checkpoints, autovacuums, autoanalyzes);
        }
    }

    private final BenchEnv env;
    private final List<Gc> collections = new CopyOnWriteArrayList<>();
    private final NotificationListener listener = (notification, handback) -> {
        if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            var info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
            // concurrent cycles of G1 and ZGC do not stop the application; only pauses count
            if (!info.getGcName().contains("Concurrent") && !info.getGcName().startsWith("ZGC Cycles")) {
                collections.add(
                        new Gc(info.getGcInfo().getEndTime(), info.getGcInfo().getDuration(), info.getGcName()));
            }
        }
    };
    private long fromUptime;
    private long[] database;

    RunConditions(BenchEnv env) {
        this.env = env;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener(listener, null, null);
        }
    }

    /** Starts counting now. */
    void start() {
        fromUptime = ManagementFactory.getRuntimeMXBean().getUptime();
        database = databaseCounters();
    }

    /** What happened since {@link #start()}. */
    Observed observe() {
        long[] now = databaseCounters();
        List<Gc> pauses =
                collections.stream().filter(g -> g.endUptimeMs() >= fromUptime).toList();
        return new Observed(
                pauses.size(),
                pauses.stream().mapToLong(Gc::durationMs).sum(),
                pauses.stream().mapToLong(Gc::durationMs).max().orElse(0),
                now[0] - database[0],
                now[1] - database[1],
                now[2] - database[2]);
    }

    private long[] databaseCounters() {
        java.util.Map<String, Object> row = env.db
                .rows("SELECT (SELECT checkpoints_timed + checkpoints_req FROM"
                        + " pg_stat_bgwriter) AS checkpoints, autovacuum_count, autoanalyze_count FROM pg_stat_user_tables"
                        + " WHERE relid = 'message_outbox'::regclass")
                .get(0);
        return new long[] {
            ((Number) row.get("checkpoints")).longValue(),
            ((Number) row.get("autovacuum_count")).longValue(),
            ((Number) row.get("autoanalyze_count")).longValue()
        };
    }

    @Override
    public void close() throws Exception {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).removeNotificationListener(listener);
        }
    }
}
