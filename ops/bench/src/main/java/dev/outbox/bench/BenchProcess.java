package dev.outbox.bench;

import dev.outbox.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Relay and API processes for the benchmark: started from this class path with production JVM
 * settings (full JIT, a fixed heap), and their memory read from {@code /proc}.
 */
final class BenchProcess {
    static final String HEAP = "-Xmx256m";

    private BenchProcess() {}

    static JavaProcess start(String name, String mainClass, Map<String, String> env, String... args)
            throws IOException {
        List<String> jvm = new ArrayList<>(List.of(HEAP));
        String extra = System.getenv("OUTBOX_BENCH_CHILD_JVM_OPTS");
        if (extra != null && !extra.isBlank()) {
            // for profiling a child, e.g. -XX:StartFlightRecording=filename=relay.jfr
            jvm.addAll(List.of(extra.trim().split("\\s+")));
        }
        return JavaProcess.start(jvm, name, mainClass, env, args);
    }

    /** Resident set size now, in MiB, or -1 where {@code /proc} is not available. */
    static double rssMiB(JavaProcess p) {
        return procStatus(p, "VmRSS:");
    }

    /** Peak resident set size so far, in MiB. */
    static double peakRssMiB(JavaProcess p) {
        return procStatus(p, "VmHWM:");
    }

    private static double procStatus(JavaProcess p, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}
