package dev.outbox.relay;

import dev.outbox.messaging.ExponentialBackoff;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens for {@code outbox_pending} notifications (sent at commit by every transaction that
 * inserts outbox rows, see migration V4) on a connection of its own, outside the pool, and wakes
 * the relay's idle publishers at once. Every relay process listens; all are woken and
 * {@code SKIP LOCKED} shares the rows among them.
 *
 * <p>A notification is a hint, never the source of truth: while this connection is down, or if a
 * notification is missed, the relay still finds the rows at its next poll. After every
 * (re)connect the relay is woken once, for rows committed while nobody listened.
 */
final class PendingListener implements AutoCloseable {
    static final String CHANNEL = "outbox_pending";
    /** Sent at commit by a registration (migration V17): the relay reads the registry again. */
    static final String REGISTRY_CHANNEL = "outbox_registry";

    private static final Logger LOG = LoggerFactory.getLogger(PendingListener.class);
    private static final int WAIT_MILLIS = 500;

    /** How long {@link #close} waits for the listening thread to close its connection. */
    static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(5);

    private final DatabaseConfig database;
    private final Runnable wakeUp;
    private final Runnable registryChanged;
    private final ExponentialBackoff backoff;
    private final Thread thread;
    private final AtomicLong notifications = new AtomicLong();
    private final AtomicLong connects = new AtomicLong();
    private final AtomicLong databaseFailures = new AtomicLong();
    private final AtomicLong unexpectedFailures = new AtomicLong();
    private volatile boolean running = true;

    PendingListener(DatabaseConfig database, Runnable wakeUp, ExponentialBackoff backoff) {
        this(database, wakeUp, () -> {}, backoff);
    }

    /** Also listens for registrations ({@value #REGISTRY_CHANNEL}) and runs {@code registryChanged} at each. */
    PendingListener(DatabaseConfig database, Runnable wakeUp, Runnable registryChanged, ExponentialBackoff backoff) {
        this.database = database;
        this.wakeUp = wakeUp;
        this.registryChanged = registryChanged;
        this.backoff = backoff;
        this.thread = new Thread(this::run, "relay-listener");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** {@value #CHANNEL} notifications received so far. */
    long notifications() {
        return notifications.get();
    }

    /** Successful LISTENs so far: 1 after start, more after reconnects. */
    long connects() {
        return connects.get();
    }

    /** Why listening failed: the database (connection lost, refused) or anything else. */
    enum FailureKind {
        DATABASE,
        UNEXPECTED
    }

    /** Times listening failed and was started again, by kind. */
    long failures(FailureKind kind) {
        return (kind == FailureKind.DATABASE ? databaseFailures : unexpectedFailures).get();
    }

    private void run() {
        int failures = 0;
        while (running) {
            try (Connection c = connect()) {
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + CHANNEL);
                    s.execute("LISTEN " + REGISTRY_CHANNEL);
                }
                connects.incrementAndGet();
                if (failures > 0) {
                    LOG.info("listening for {} again after {} failure(s)", CHANNEL, failures);
                }
                failures = 0;
                wakeUp.run(); // rows committed while nobody listened
                registryChanged.run(); // and registrations
                PGConnection pg = c.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] received = pg.getNotifications(WAIT_MILLIS);
                    if (received != null && received.length > 0) {
                        dispatch(received);
                    }
                }
            } catch (Throwable e) { // NOPMD: the loop boundary, see below
                if (!running) {
                    return;
                }
                failures++;
                long delay = backoff.delay(failures).toMillis();
                if (e instanceof SQLException sql) {
                    databaseFailures.incrementAndGet();
                    LOG.warn(
                            "listening for {} failed ({}: {}); relying on polling, retrying in {} ms",
                            CHANNEL,
                            sql.getSQLState(),
                            sql.getMessage(),
                            delay);
                } else {
                    // a bug or a driver surprise, an Error included, must not end the listener: without it
                    // an idle relay waits a whole poll interval for every row
                    unexpectedFailures.incrementAndGet();
                    LOG.error(
                            "listening for {} failed unexpectedly; relying on polling, listening again in {} ms",
                            CHANNEL,
                            delay,
                            e);
                }
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void dispatch(PGNotification[] received) {
        int pending = 0;
        boolean registry = false;
        for (PGNotification n : received) {
            if (REGISTRY_CHANNEL.equals(n.getName())) {
                registry = true;
            } else {
                pending++;
            }
        }
        if (registry) {
            registryChanged.run();
        }
        if (pending > 0) {
            notifications.addAndGet(pending);
            wakeUp.run();
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(database.url(), DataSources.unpooled(database, "-listener"));
    }

    @Override
    public void close() {
        // the listening thread notices within WAIT_MILLIS and closes its own connection (a pgjdbc
        // connection is not to be closed from another thread while it reads)
        running = false;
        thread.interrupt();
        try {
            thread.join(CLOSE_WAIT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
