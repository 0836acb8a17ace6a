package dev.outbox.messaging;

import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the one broker connection of a process and acts as its circuit breaker. While the broker
 * is unreachable or has blocked publishers (resource alarm), {@link #connection()} answers null
 * and callers do no broker work at all; a background thread reconnects with capped exponential
 * backoff and runs {@code onConnected} (declare topology, start consumers) on every new
 * connection.
 */
public final class BrokerSession implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerSession.class);

    /** What the session runs on each new connection, before anyone else may use it. */
    @FunctionalInterface
    public interface ConnectedCallback {
        void onConnected(Connection connection) throws IOException;
    }

    private final BrokerConfig config;
    private final ExponentialBackoff backoff;
    private final ConnectedCallback onConnected;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Thread thread;

    private volatile Connection connection;
    private volatile boolean blocked;
    private volatile boolean running = true;
    private volatile String lastError = "not connected yet";
    private volatile long disconnectedSinceNanos = System.nanoTime();

    public BrokerSession(BrokerConfig config, ExponentialBackoff backoff, ConnectedCallback onConnected) {
        this.config = config;
        this.backoff = backoff;
        this.onConnected = onConnected;
        this.thread = new Thread(this::run, "broker-session-" + config.connectionName());
        this.thread.setDaemon(true);
    }

    /** What this session connects with (the URI's nodes, timeouts, the broker's message size limit). */
    public BrokerConfig config() {
        return config;
    }

    public void start() {
        thread.start();
    }

    /** The live connection, or null while the breaker is open (down or blocked). */
    public Connection connection() {
        Connection c = connection;
        return c != null && c.isOpen() && !blocked ? c : null;
    }

    public boolean isAvailable() {
        return connection() != null;
    }

    /** Why the broker is not available, for logs and health checks. */
    public String lastError() {
        return lastError;
    }

    /** How long the breaker has been open, zero while connected. */
    public Duration downFor() {
        return isAvailable() ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - disconnectedSinceNanos);
    }

    /** Waits until the breaker closes; false on timeout or stop. */
    public boolean awaitAvailable(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (running && !isAvailable()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(left);
            }
            return isAvailable();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drops the current connection (for example after a confirm timeout, when the connection can
     * no longer be trusted); the session reconnects by itself.
     */
    public void recycle(String reason) {
        Connection c = connection;
        if (c != null) {
            LOG.warn("recycling broker connection: {}", reason);
            lastError = reason;
            c.abort(1_000);
        }
    }

    private void run() {
        int failures = 0;
        while (running) {
            Connection current = connection;
            if (current != null && current.isOpen()) {
                awaitChange(Duration.ofSeconds(1));
                continue;
            }
            Connection c = null;
            try {
                c = AmqpConnections.open(config);
                c.addBlockedListener(new BlockedListener() {
                    @Override
                    public void handleBlocked(String reason) {
                        LOG.warn("broker blocked publishers ({}): claiming stops until it unblocks", reason);
                        lastError = "blocked by broker: " + reason;
                        blocked = true;
                        disconnectedSinceNanos = System.nanoTime();
                        signal();
                    }

                    @Override
                    public void handleUnblocked() {
                        LOG.info("broker unblocked publishers");
                        blocked = false;
                        signal();
                    }
                });
                onConnected.onConnected(c);
                // after onConnected: aborting a connection it failed on must not report a lost one
                // (a listener added to a connection already closed runs at once)
                c.addShutdownListener(this::onShutdown);
                blocked = false;
                connection = c;
                String node = c.getAddress().getHostAddress() + ":" + c.getPort();
                if (failures > 0) {
                    LOG.info(
                            "broker {} reachable again after {} failed attempt(s), connected to node {}",
                            config.safeUri(),
                            failures,
                            node);
                } else {
                    LOG.info("connected to broker {} (node {})", config.safeUri(), node);
                }
                failures = 0;
                signal();
            } catch (IOException | TimeoutException | RuntimeException | Error e) {
                // an Error from onConnected included: this thread is the only one that reconnects, and
                // a process whose session thread died would never reach the broker again
                if (c != null) {
                    // opened, but onConnected failed: without this every retry would leak a connection
                    c.abort(1_000);
                }
                lastError = describe(e);
                Duration wait = backoff.delay(failures);
                if (failures == 0 || Integer.bitCount(failures) == 1) {
                    // first failure and then at powers of two: an outage logs a handful of lines, not one per try
                    LOG.warn(
                            "broker {} unavailable (BROKER_UNAVAILABLE: {}); attempt {} failed, next in {} ms",
                            config.safeUri(),
                            lastError,
                            failures + 1,
                            wait.toMillis());
                }
                failures++;
                awaitChange(wait);
            }
        }
    }

    private void onShutdown(ShutdownSignalException cause) {
        if (cause.isInitiatedByApplication() && !running) {
            return;
        }
        lastError = "connection lost: " + FailureDescriptions.describe(cause);
        disconnectedSinceNanos = System.nanoTime();
        connection = null;
        LOG.warn("broker connection lost ({}); reconnecting", lastError);
        signal();
    }

    private void awaitChange(Duration timeout) {
        lock.lock();
        try {
            if (running) {
                changed.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            lock.unlock();
        }
    }

    private void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private static String describe(Throwable e) {
        if (e.getCause() instanceof ShutdownSignalException sse) {
            return FailureDescriptions.describe(sse);
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** How long {@link #close} waits for the connecting thread to notice. */
    static final Duration THREAD_EXIT = Duration.ofSeconds(5);

    /** How long {@link #close} waits for the broker's close-ok before it drops the socket. */
    static final Duration CONNECTION_CLOSE = Duration.ofSeconds(2);

    /** The longest {@link #close} takes: the channels were closed before, by their owners. */
    public static Duration closeBound() {
        return THREAD_EXIT.plus(CONNECTION_CLOSE);
    }

    @Override
    public void close() {
        running = false;
        signal();
        try {
            thread.join(THREAD_EXIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Connection c = connection;
        connection = null;
        if (c != null && c.isOpen()) {
            try {
                c.close((int) CONNECTION_CLOSE.toMillis());
            } catch (IOException | RuntimeException e) {
                LOG.debug("closing broker connection", e);
            }
        }
    }
}
