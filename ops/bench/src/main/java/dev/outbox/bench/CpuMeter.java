package dev.outbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * CPU time each part of the machine spent during a scenario, from {@code /proc/<pid>/stat}: the
 * database (every {@code postgres} process), the broker ({@code beam.smp}, or the Qpid broker in
 * this JVM, which counts as "bench"), the relay processes, and this benchmark JVM. On a machine
 * where all of them share the cores, CPU microseconds per row say what limits throughput.
 * Linux only; elsewhere every figure is NaN.
 */
final class CpuMeter {
    private static final double TICKS_PER_SECOND = 100.0; // USER_HZ, 100 on every mainstream Linux

    /** CPU seconds per part at one moment. */
    record Snapshot(Map<String, Double> seconds) {}

    private CpuMeter() {}

    static Snapshot take(Set<Long> relayPids) {
        Map<String, Double> out = new HashMap<>();
        long self = ProcessHandle.current().pid();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .forEach(p -> {
                        try {
                            String stat = Files.readString(p.resolve("stat"));
                            int close = stat.lastIndexOf(')');
                            String comm = stat.substring(stat.indexOf('(') + 1, close);
                            String[] f = stat.substring(close + 2).split(" ");
                            // fields 14 and 15 of stat (utime, stime) are 11 and 12 after "pid (comm) "
                            double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
                            long pid = Long.parseLong(p.getFileName().toString());
                            String part = pid == self
                                    ? "bench"
                                    : relayPids.contains(pid)
                                            ? "relay"
                                            : comm.equals("postgres")
                                                    ? "database"
                                                    : comm.equals("beam.smp") ? "broker" : null;
                            if ("database".equals(part) || "broker".equals(part)) {
                                // fields 16 and 17 (cutime, cstime): CPU of children that ended. A backend or
                                // autovacuum worker that exits between two snapshots hands its CPU time to
                                // the postmaster this way; without it the database's share went missing or
                                // negative whenever connections closed during a scenario.
                                cpu += (Long.parseLong(f[13]) + Long.parseLong(f[14])) / TICKS_PER_SECOND;
                            }
                            if (part != null) {
                                out.merge(part, cpu, Double::sum);
                            }
                        } catch (IOException | RuntimeException e) {
                            // the process ended between the listing and the read: it is not part of the run
                        }
                    });
        } catch (IOException e) {
            return new Snapshot(Map.of());
        }
        return new Snapshot(out);
    }

    /** CPU microseconds per row of each part between two snapshots. */
    static Map<String, Double> perRow(Snapshot before, Snapshot after, long rows) {
        Map<String, Double> out = new HashMap<>();
        for (String part : new String[] {"database", "broker", "relay", "bench"}) {
            // a part absent before (the relays' processes) had used no CPU yet; absent after: not measured
            Double a = after.seconds().get(part);
            out.put(part, a == null ? Double.NaN : (a - before.seconds().getOrDefault(part, 0.0)) * 1e6 / rows);
        }
        return out;
    }
}
