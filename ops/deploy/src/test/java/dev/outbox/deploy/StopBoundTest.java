package dev.outbox.deploy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.outbox.config.StopBound;
import dev.outbox.deploy.Workloads.Workload;
import dev.outbox.persistence.Database;
import dev.outbox.persistence.DatabaseConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The kubelet kills a pod {@code terminationGracePeriodSeconds} after it began to stop, preStop
 * sleep included. Each process says how long its stop may take at most ({@link StopBound}, from its
 * settings: the declarations' defaults and what the manifests set), so each grace period must
 * outlast the sleep and that bound. The probes follow from the same settings.
 */
class StopBoundTest {
    /** JVM start, Guice and an up-to-date schema's check, beyond OUTBOX_STARTUP_WAIT, before the port opens. */
    private static final Duration STARTING_AFTER_THE_DATABASE = Duration.ofSeconds(60);

    @Test
    void everyGracePeriodOutlastsThePreStopSleepAndTheProcesssStopBound() {
        for (Workload w : Workloads.all()) {
            StopBound bound = w.process().stopBound(w.settings());
            long needed = w.preStopSleepSeconds() + ceilSeconds(bound.total());
            System.out.println(w + ": preStop " + w.preStopSleepSeconds() + " s + " + bound + " -> grace "
                    + w.gracePeriodSeconds() + " s");
            assertTrue(
                    w.gracePeriodSeconds() > needed,
                    w + ": terminationGracePeriodSeconds " + w.gracePeriodSeconds() + " must exceed the preStop sleep ("
                            + w.preStopSleepSeconds() + " s) and the stop bound: " + bound);
        }
    }

    @Test
    void theStartupProbeWaitsOutTheProcesssWaitForItsDatabase() {
        for (Workload w : Workloads.all()) {
            var probe = w.startup();
            long budget = (long) probe.getPeriodSeconds() * probe.getFailureThreshold();
            Duration wait = DatabaseConfig.startupWait(w.settings());
            assertTrue(
                    budget >= wait.plus(STARTING_AFTER_THE_DATABASE).toSeconds(),
                    w + ": the startup probe gives up after " + budget + " s, but the port opens only after the"
                            + " database answered (OUTBOX_STARTUP_WAIT " + wait.toSeconds() + " s) and the"
                            + " migrations ran");
        }
    }

    /**
     * A readiness check borrows a pooled connection (waiting up to the connect timeout when all are
     * out) and tests it: a probe that times out sooner reads a slow answer as none. A worker's
     * endpoint has two threads, so a liveness request can queue behind such a check.
     */
    @Test
    void probeTimeoutsOutlastTheReadinessCheck() {
        for (Workload w : Workloads.all()) {
            Duration check = Database.pingBound(DatabaseConfig.required(w.settings(), w.name(), ""));
            for (var probe : new io.fabric8.kubernetes.api.model.Probe[] {w.readiness(), w.liveness()}) {
                assertTrue(
                        probe.getTimeoutSeconds() > check.toSeconds(),
                        w + ": a probe's timeout of " + probe.getTimeoutSeconds()
                                + " s is not longer than a readiness check may take (" + check.toSeconds() + " s)");
            }
        }
    }

    private static long ceilSeconds(Duration d) {
        return d.plusNanos(999_999_999).toSeconds();
    }
}
