package dev.outbox.persistence.relay;

import dev.outbox.persistence.outbox.OutboxMapper;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.List;
import org.mybatis.guice.transactional.Transactional;

/**
 * The relay registry through the pool: recovering the rows of dead relays, and what operators
 * and metrics read. Each method is one short transaction. The lock itself is held on a connection
 * of its own ({@link RelayLock}), never on a pooled one.
 */
@Singleton
public class RelayRegistry {
    private static final int UNREGISTER_BATCH = 1_000;
    private final RelayRegistryMapper mapper;

    @Inject
    public RelayRegistry(RelayRegistryMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * Gives back ({@code STALE_LOCK} the first time, {@code RELAY_DIED} a row given back before:
     * {@link RelayRegistryMapper#releaseHeldBy}) the rows of registered relays (other than {@code self})
     * whose liveness lock nobody holds and whose last heartbeat is older than {@code grace}. The
     * check and the release are one transaction that holds each dead relay's lock until it commits,
     * so no new incarnation of that relay can start claiming in between.
     */
    @Transactional(force = true)
    public List<OutboxMapper.StaleLease> releaseDeadRelays(String self, Duration grace, int limit, int maxAttempts) {
        List<String> dead = mapper.lockDeadRelays(self, RelayLock.NAMESPACE, grace.toMillis());
        if (dead.isEmpty()) {
            return List.of();
        }
        return mapper.releaseHeldBy(
                dead.toArray(String[]::new),
                "died before it recorded an outcome (its liveness lock was free)",
                limit,
                maxAttempts);
    }

    /**
     * At start, once this relay holds its own lock: the rows still leased to its id belong to a
     * previous incarnation that is gone. Called before the relay claims anything.
     */
    @Transactional(force = true)
    public List<OutboxMapper.StaleLease> takeBackOwn(String relayId, int limit, int maxAttempts) {
        return mapper.releaseHeldBy(
                new String[] {relayId},
                "was restarted before it recorded an outcome; the new incarnation gave it back",
                limit,
                maxAttempts);
    }

    /** What {@link #unregister} found. */
    public enum Unregistered {
        /** The relay id was not registered: nothing to do. */
        NOT_REGISTERED,
        /** It was registered and its lock was free: its rows were given back, and it is removed. */
        REMOVED,
        /** Some session holds its lock: a live relay with this id, or a peer's sweep for a moment. */
        LOCK_HELD
    }

    /**
     * For a relay that runs without liveness (behind a pooler that cannot keep a session): removes
     * its id from the registry, so that no peer ever takes its rows for a dead relay's (its lock is
     * always free) and they are recovered by the lease alone. A registration left by an earlier run
     * with liveness is a dead incarnation's, since its lock is free: its rows are given back first,
     * as a peer's sweep would have. Call before the relay claims anything.
     */
    @Transactional(force = true)
    public Unregistered unregister(String relayId, int maxAttempts) {
        Boolean locked = mapper.lockOwnRegistration(relayId, RelayLock.NAMESPACE);
        if (locked == null) {
            return Unregistered.NOT_REGISTERED;
        }
        if (!locked) {
            return Unregistered.LOCK_HELD;
        }
        List<OutboxMapper.StaleLease> batch;
        do {
            batch = mapper.releaseHeldBy(
                    new String[] {relayId},
                    "ran with liveness before and is gone; the relay restarted without liveness gave it back",
                    UNREGISTER_BATCH,
                    maxAttempts);
        } while (batch.size() == UNREGISTER_BATCH);
        mapper.unregister(relayId);
        return Unregistered.REMOVED;
    }

    /** Forgets dead relays that hold nothing and were last seen longer ago than {@code after}. */
    @Transactional(force = true)
    public List<String> forgetDead(Duration after) {
        return mapper.forgetDead(RelayLock.NAMESPACE, after.toMillis());
    }

    @Transactional
    public List<RelayView> list() {
        return mapper.list(RelayLock.NAMESPACE);
    }

    @Transactional
    public long live() {
        return mapper.countLive(RelayLock.NAMESPACE);
    }
}
