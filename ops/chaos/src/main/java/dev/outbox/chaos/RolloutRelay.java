package dev.outbox.chaos;

import dev.outbox.testkit.JavaProcess;
import java.io.IOException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One relay process of the rollout test: a real JVM ({@code RelayMain}) with its own
 * {@code OUTBOX_RELAY_ID}, what the test did to it and when, the connections it was seen holding,
 * and what it said about itself in its log.
 */
final class RolloutRelay {
    enum Role {
        /** started with the others at once, SIGTERMed mid-drain */
        TERMINATED,
        /** started with the others at once, ran to the end */
        SURVIVOR,
        /** started right after the SIGTERMs, as a rollout starts the new pods */
        REPLACEMENT
    }

    /** What a relay logs about itself when it stops ({@code OutboxRelay.stop}, {@code RelayStats}). */
    record StopLine(long claimed, long published, long released, long failed, long lostLeases, long staleRecovered) {}

    /**
     * JVM options of production: the full JIT and a heap like a container's; the rollout measures
     * what a real start and drain cost, not a test's quick start.
     */
    private static final List<String> JVM = List.of("-Xmx256m");

    /** A server said no (PostgreSQL's, RabbitMQ's own words), or the relay failed: never in a healthy rollout. */
    static final Pattern REFUSED = Pattern.compile("too many clients|too many connections|remaining connection slots"
            + "|Connection refused|NOT_ALLOWED|ACCESS_REFUSED|connection limit|cannot start|^\\S+ ERROR ");
    /** A connection attempt that failed and is tried again, whatever the reason. */
    static final Pattern RETRIED = Pattern.compile(
            "not reachable yet|BROKER_UNAVAILABLE|recycling broker connection" + "|broker connection lost");

    private static final Pattern CONNECTED = Pattern.compile("connected to broker |reachable again after");
    private static final Pattern SIGTERM_RECEIVED = Pattern.compile("SIGTERM received: stopping the relay");
    private static final Pattern STOPPED_CLEANLY = Pattern.compile("relay stopped cleanly");
    private static final Pattern UNKNOWN_AT_SHUTDOWN = Pattern.compile("(\\d+) message\\(s\\) unconfirmed at shutdown");
    private static final Pattern FAILURE_COUNT = Pattern.compile("=(\\d+)");

    final String id;
    Role role;
    final JavaProcess process;
    /**
     * When the test started it, when it logged that it runs, was sent SIGTERM and exited: seconds
     * since the test's start; -1 until it happened.
     */
    final double launchedAt;

    volatile double runningAt = -1;
    volatile double sigtermAt = -1;
    volatile double exitedAt = -1;
    volatile int exitCode = Integer.MIN_VALUE;
    /** It outlived the grace period and was killed, as the kubelet would. */
    volatile boolean killedAtGrace;

    /** The most connections seen at once, by the kernel's sockets of the process. */
    volatile int peakDatabase;
    /** The relay's backends by application name when it held {@link #peakDatabase}. */
    volatile Map<String, Integer> peakDatabaseByName = Map.of();

    volatile int peakBroker;
    /** The most of its connections the broker counted in the vhost at once; -1: never asked. */
    volatile int peakBrokerCounted = -1;
    /** The most channels the broker counted on them at once; -1: never asked. */
    volatile int peakChannels = -1;

    // read from the log at the end
    StopLine stop;
    boolean stoppedCleanly;
    long unknownAtShutdown;
    int brokerConnectsLogged;
    double logSigtermToStopped = -1;
    final List<String> refused = new ArrayList<>();
    final List<String> retried = new ArrayList<>();

    private RolloutRelay(String id, Role role, JavaProcess process, double launchedAt) {
        this.id = id;
        this.role = role;
        this.process = process;
        this.launchedAt = launchedAt;
    }

    static RolloutRelay launch(int index, Role role, Map<String, String> env, double now) throws IOException {
        String id = "rollout-relay-" + index;
        Map<String, String> e = new LinkedHashMap<>(env);
        e.put("OUTBOX_RELAY_ID", id);
        return new RolloutRelay(id, role, JavaProcess.start(JVM, id, "dev.outbox.relay.RelayMain", e), now);
    }

    Pattern runningLine() {
        return Pattern.compile("relay " + Pattern.quote(id) + " running \\(pid");
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Seconds from SIGTERM to exit, as the kubelet sees it; -1 when it was not SIGTERMed or has not exited. */
    double drainSeconds() {
        return sigtermAt < 0 || exitedAt < 0 ? -1 : exitedAt - sigtermAt;
    }

    /** Sends SIGTERM now. */
    void sigterm(double now) {
        sigtermAt = now;
        process.signalTerminate();
    }

    /**
     * Waits for the exit up to {@code grace} after the SIGTERM; past it, SIGKILL, as the kubelet
     * does when a pod's grace period is over.
     */
    void awaitExit(Duration grace, java.util.function.DoubleSupplier clock) throws InterruptedException {
        try {
            exitCode = process.awaitExit(grace);
            exitedAt = clock.getAsDouble();
        } catch (AssertionError stillRunning) {
            killedAtGrace = true;
            process.kill();
            exitedAt = clock.getAsDouble();
            exitCode = 137;
        }
    }

    /** Reads what the relay logged about its connections, its stop, refusals and retries. */
    void readLog(long startWallMillis) {
        String out = process.output();
        Matcher s = Pattern.compile("relay " + Pattern.quote(id)
                        + " stopped: claimed=(\\d+) published=(\\d+) released=(\\d+) failures=\\{([^}]*)\\}"
                        + " lostLeases=(\\d+) staleRecovered=(\\d+)")
                .matcher(out);
        if (s.find()) {
            long failed = 0;
            Matcher f = FAILURE_COUNT.matcher(s.group(4));
            while (f.find()) {
                failed += Long.parseLong(f.group(1));
            }
            stop = new StopLine(
                    Long.parseLong(s.group(1)),
                    Long.parseLong(s.group(2)),
                    Long.parseLong(s.group(3)),
                    failed,
                    Long.parseLong(s.group(5)),
                    Long.parseLong(s.group(6)));
        }
        stoppedCleanly = STOPPED_CLEANLY.matcher(out).find();
        Matcher u = UNKNOWN_AT_SHUTDOWN.matcher(out);
        unknownAtShutdown = u.find() ? Long.parseLong(u.group(1)) : 0;
        double signalled = -1;
        double stopped = -1;
        for (String line : out.split("\n")) {
            if (CONNECTED.matcher(line).find()) {
                brokerConnectsLogged++;
            }
            if (REFUSED.matcher(line).find()) {
                refused.add(line);
            }
            if (RETRIED.matcher(line).find()) {
                retried.add(line);
            }
            if (SIGTERM_RECEIVED.matcher(line).find()) {
                signalled = logTime(line, startWallMillis);
            }
            if (STOPPED_CLEANLY.matcher(line).find()) {
                stopped = logTime(line, startWallMillis);
            }
        }
        if (signalled >= 0 && stopped >= 0) {
            logSigtermToStopped = stopped - signalled;
        }
    }

    /** The time a log line was written, in seconds since the test's start; -1 if it carries none. */
    static double logTime(String line, long startWallMillis) {
        int space = line.indexOf(' ');
        if (space < 0) {
            return -1;
        }
        try {
            return (OffsetDateTime.parse(line.substring(0, space)).toInstant().toEpochMilli() - startWallMillis)
                    / 1000.0;
        } catch (DateTimeParseException notATimestamp) {
            return -1;
        }
    }

    /** Whether the stop line adds up: every row it claimed was published, failed or given back. */
    boolean accounted() {
        return stop != null && stop.claimed() == stop.published() + stop.released() + stop.failed();
    }
}
