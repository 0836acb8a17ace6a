package dev.outbox.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A relay-worker or API process started from this class path with production JVM settings (full
 * JIT, a fixed heap), its output in a log file, and its memory read from {@code /proc}.
 */
final class BenchProcess implements AutoCloseable {
    static final String HEAP = "-Xmx256m";

    private final String name;
    private final Process process;
    private final Path log;

    private BenchProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static BenchProcess start(String name, String mainClass, Map<String, String> env, String... args)
            throws IOException {
        Path log = Files.createTempFile("outbox-bench-" + name + "-", ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                HEAP));
        String extra = System.getenv("OUTBOX_BENCH_CHILD_JVM_OPTS");
        if (extra != null && !extra.isBlank()) {
            // for profiling a child, e.g. -XX:StartFlightRecording=filename=relay.jfr
            command.addAll(List.of(extra.trim().split("\\s+")));
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new BenchProcess(name, pb.start(), log);
    }

    void awaitOutput(Pattern pattern, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            String out = Files.readString(log, StandardCharsets.UTF_8);
            if (pattern.matcher(out).find()) {
                return;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + out);
            }
            // a log file has no event to wait on; 50 ms keeps the wait cheap and prompt
            process.waitFor(50, TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException(name + " did not print /" + pattern + "/ within " + timeout + ":\n"
                + Files.readString(log, StandardCharsets.UTF_8));
    }

    long pid() {
        return process.pid();
    }

    String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** Resident set size now, in MiB, or -1 where {@code /proc} is not available. */
    double rssMiB() {
        return procStatus("VmRSS:");
    }

    /** Peak resident set size so far, in MiB. */
    double peakRssMiB() {
        return procStatus("VmHWM:");
    }

    private double procStatus(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** SIGTERM and wait: the relay drains and exits 0. */
    int stop(Duration timeout) throws InterruptedException, IOException {
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(name + " did not stop within " + timeout + ":\n" + output());
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
