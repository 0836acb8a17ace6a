package dev.outbox.relay;

import java.sql.SQLException;
import java.time.Duration;
import org.postgresql.replication.PGReplicationStream;

/**
 * Tells the server this reader is alive while the stream's thread does not read: while it is
 * throttled (too many outcomes unrecorded), while it publishes a large transaction, while a broker
 * outage keeps it waiting. Not answering for wal_sender_timeout makes the server end the stream.
 * One per stream; stream thread only.
 */
final class CdcKeepAlive {
    /**
     * How often the stream tells the server it is alive while it reads nothing (too many outcomes
     * unrecorded): well inside the smallest wal_sender_timeout the relay asks for (1 s).
     */
    static final Duration STATUS_WHILE_THROTTLED = Duration.ofMillis(250);

    /** The stream being read. */
    private final PGReplicationStream stream;
    /** When the server last heard from this reader. */
    private long lastStatusNanos;

    CdcKeepAlive(PGReplicationStream stream) {
        this.stream = stream;
        this.lastStatusNanos = System.nanoTime();
    }

    /** Sends a status update unless the server heard from this reader in the last {@link #STATUS_WHILE_THROTTLED}. */
    void keepAlive() throws SQLException {
        long now = System.nanoTime();
        if (now - lastStatusNanos >= STATUS_WHILE_THROTTLED.toNanos()) {
            stream.forceUpdateStatus();
            lastStatusNanos = now;
        }
    }
}
