package dev.outbox.config;

import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into an orderly stop. The JVM's own handling runs shutdown hooks and
 * exits with 143; handling the signals here lets {@code main} drain its work and exit 0, which
 * is what a process supervisor (systemd, Kubernetes) reads as a clean stop.
 */
public final class ProcessSignals {
    private final CountDownLatch terminate = new CountDownLatch(1);
    private volatile String received;

    private ProcessSignals() {}

    /** Installs handlers for TERM and INT. */
    public static ProcessSignals install() {
        ProcessSignals s = new ProcessSignals();
        for (String name : new String[] {"TERM", "INT"}) {
            Signal.handle(new Signal(name), sig -> {
                s.received = "SIG" + sig.getName();
                s.terminate.countDown();
            });
        }
        return s;
    }

    /** Blocks until a signal arrives, and returns its name. */
    public String await() throws InterruptedException {
        terminate.await();
        return received;
    }

    /** For embedding: stop as if signalled. */
    public void trigger(String reason) {
        received = reason;
        terminate.countDown();
    }
}
