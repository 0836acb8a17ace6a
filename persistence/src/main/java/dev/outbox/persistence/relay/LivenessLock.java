package dev.outbox.persistence.relay;

import java.time.Instant;

/**
 * A relay's liveness lock on a session of its own, as the relay holds it. {@link RelayLock} is
 * the real one; the seam exists so that the holder's loop, whose failures decide whether other
 * relays take this relay's rows, can be driven through every failure in a fast test.
 */
public interface LivenessLock extends AutoCloseable {

    /** Takes the lock if nobody holds it; true when this session holds it now. */
    boolean tryAcquire();

    /** Once the lock is held: who this incarnation is, for operators. */
    void recordIncarnation(String host, long pid, Instant startedAt);

    /**
     * A round trip on the lock's session; throws once the session is gone. False when the relay's
     * registration had gone and was written back (under the key whose lock the session holds).
     */
    boolean heartbeat();

    /** Who holds the lock now, for a process that was refused it. */
    LockHolder holder();

    int lockKey();

    /** The server process of this session. */
    int backendPid();

    /** Ends the session, and with it the lock. */
    @Override
    void close();

    /**
     * The session holding a relay's lock.
     *
     * @param description who it is, for a log line
     * @param livenessSession it is another relay's liveness session, which holds the lock for that
     *     relay's life; otherwise it is most likely a peer's sweep that holds the lock for the one
     *     short transaction in which it gives back a dead incarnation's rows
     */
    record LockHolder(String description, boolean livenessSession) {
        public static LockHolder nobody() {
            return new LockHolder("nobody (it was released meanwhile)", false);
        }
    }
}
