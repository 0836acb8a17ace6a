package dev.outbox.config;

import java.io.UncheckedIOException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code main} of every process of this service: start, run until SIGTERM or SIGINT, stop.
 * Exit codes: 0 after a clean stop, 2 when the process cannot start (bad configuration, the
 * database unreachable within {@code OUTBOX_STARTUP_WAIT}, a port taken), which a supervisor reads
 * as "do not restart in a loop without looking".
 */
public final class ProcessMain {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessMain.class);

    /** The process failed to start: exit code 2. */
    public static final int CANNOT_START = 2;

    private ProcessMain() {}

    /**
     * Runs a process: {@code start} returns the running application, whose {@code close} stops it.
     * Never returns.
     */
    public static void run(String name, Supplier<? extends AutoCloseable> start) {
        run(name, start, app -> name);
    }

    /**
     * As {@link #run(String, Supplier)}, naming the running process with {@code label} in the line
     * that says it runs (scripts wait for it, e.g. "relay relay-1 running").
     */
    public static <T extends AutoCloseable> void run(String name, Supplier<T> start, Function<T, String> label) {
        LoggingConfig.checkOrExit(name, Settings.fromEnvironment());
        ProcessSignals signals = ProcessSignals.install();
        T app;
        try {
            app = start.get();
        } catch (RuntimeException e) {
            if (!(e instanceof EnvironmentFailure || e instanceof UncheckedIOException)) {
                throw e;
            }
            LOG.error("{} cannot start: {}", name, e.getMessage());
            System.exit(CANNOT_START);
            return;
        }
        LOG.info(
                "{} running (pid {}); stop it with SIGTERM",
                label.apply(app),
                ProcessHandle.current().pid());
        int code = 0;
        try {
            LOG.info("{} received: stopping the {}", signals.await(), name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.info("interrupted: stopping the {}", name);
        }
        try {
            app.close();
            LOG.info("{} stopped cleanly", name);
        } catch (Exception e) {
            LOG.error("{} did not stop cleanly", name, e);
            code = 1;
        }
        System.exit(code);
    }
}
