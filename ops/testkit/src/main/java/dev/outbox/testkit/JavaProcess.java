package dev.outbox.testkit;

import dev.outbox.testkit.net.NetworkSandbox;
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
 * A main class run in its own JVM with the test's class path: a real OS process that a test can
 * kill with SIGKILL or stop with SIGTERM, to test crash windows honestly. Output goes to a log
 * file that the test can wait on.
 */
public final class JavaProcess implements AutoCloseable {
    /** JVM options that favour a quick start over peak speed, as tests want. */
    private static final List<String> QUICK_START = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1");

    private final Process process;
    private final Path log;
    private final String name;

    private JavaProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts with JVM options that favour a quick start over peak speed, as tests want. */
    public static JavaProcess start(String name, String mainClass, Map<String, String> env, String... args)
            throws IOException {
        return start(QUICK_START, name, mainClass, env, args);
    }

    /** Starts with the given JVM options (the benchmark runs processes with the full JIT). */
    public static JavaProcess start(
            List<String> jvmOptions, String name, String mainClass, Map<String, String> env, String... args)
            throws IOException {
        return launch(name, command(jvmOptions, mainClass, args), env);
    }

    /**
     * Starts a jar as it ships, {@code java -jar}: the class path is the jar's manifest's and no
     * more, none of the test's, so a class or resource the jar lacks is missing here as in a
     * deployment.
     */
    public static JavaProcess startJar(String name, Path jar, Map<String, String> env, String... args)
            throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing; it is built by `mvn package`");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(QUICK_START);
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(List.of(args));
        return launch(name, command, env);
    }

    /**
     * Starts {@code mainClass} on the class path of shipped jars, as {@code java -cp a.jar:b.jar
     * Main} does: each jar's manifest adds its own {@code Class-Path}, the test's class path adds
     * nothing.
     */
    public static JavaProcess startShipped(
            String name, List<Path> jars, String mainClass, Map<String, String> env, String... args)
            throws IOException {
        for (Path jar : jars) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException(jar + " is missing; it is built by `mvn package`");
            }
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(QUICK_START);
        command.add("-cp");
        command.add(String.join(
                java.io.File.pathSeparator, jars.stream().map(Path::toString).toList()));
        command.add(mainClass);
        command.addAll(List.of(args));
        return launch(name, command, env);
    }

    /**
     * Starts inside a {@link NetworkSandbox}: {@code ip netns exec} execs the JVM, so {@link #pid()}
     * is the JVM's own and signals reach it.
     */
    public static JavaProcess startIn(
            NetworkSandbox sandbox, String name, String mainClass, Map<String, String> env, String... args)
            throws IOException {
        return startIn(sandbox, QUICK_START, name, mainClass, env, args);
    }

    /** {@link #startIn(NetworkSandbox, String, String, Map, String...)} with JVM options. */
    public static JavaProcess startIn(
            NetworkSandbox sandbox,
            List<String> jvmOptions,
            String name,
            String mainClass,
            Map<String, String> env,
            String... args)
            throws IOException {
        return launch(name, sandbox.wrap(command(jvmOptions, mainClass, args)), env);
    }

    /** The command line that runs {@code mainClass} in a JVM of this one's and with its class path. */
    private static List<String> command(List<String> jvmOptions, String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(List.of(args));
        return command;
    }

    /** Runs {@code command} with {@code env} added, its output (stderr too) going to a new log file. */
    private static JavaProcess launch(String name, List<String> command, Map<String, String> env) throws IOException {
        Path log = Files.createTempFile("outbox-" + name + "-", ".log");
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        return new JavaProcess(name, pb.start(), log);
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    public String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits until a line of output matches, failing with the output if the process dies first. */
    public void awaitOutput(Pattern pattern, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (pattern.matcher(output()).find()) {
                return;
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + " before printing /" + pattern
                        + "/:\n" + output());
            }
            // polling a log file: there is no event to wait on, 50 ms keeps it cheap and prompt
            process.waitFor(50, TimeUnit.MILLISECONDS);
        }
        throw new AssertionError(name + " did not print /" + pattern + "/ within " + timeout + ":\n" + output());
    }

    /** SIGKILL: no shutdown hooks, no finally blocks, exactly like an OOM kill or a node loss. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " survived SIGKILL");
        }
    }

    /** SIGTERM, then waits for the exit code. */
    public int terminate(Duration timeout) throws InterruptedException {
        signalTerminate();
        return awaitExit(timeout);
    }

    /**
     * SIGTERM without waiting: a rolling update signals several processes at the same moment and
     * then waits for each ({@link #awaitExit}).
     */
    public void signalTerminate() {
        process.destroy();
    }

    /** Waits for the process to exit and returns its exit code; fails with its output at the timeout. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not exit within " + timeout + " of SIGTERM:\n" + output());
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
