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
    private final RelayRegistryMapper mapper;

    @Inject
    public RelayRegistry(RelayRegistryMapper mapper) {
        this.mapper = mapper;
    }

    /**
     * Gives back, with {@code RELAY_DIED}, the rows of registered relays (other than {@code self})
     * whose liveness lock nobody holds. The check and the release are one transaction that holds
     * each dead relay's lock until it commits, so no new incarnation of that relay can start
     * claiming in between.
     */
    @Transactional(force = true)
    public List<OutboxMapper.StaleLease> releaseDeadRelays(String self, int limit, int maxAttempts) {
        List<String> dead = mapper.lockDeadRelays(self, RelayLock.NAMESPACE);
        if (dead.isEmpty()) {
            return List.of();
        }
        return mapper.releaseHeldBy(dead.toArray(String[]::new),
                "died before it recorded an outcome (its liveness lock was free)", limit, maxAttempts);
    }

    /**
     * At start, once this relay holds its own lock: the rows still leased to its id belong to a
     * previous incarnation that is gone. Called before the relay claims anything.
     */
    @Transactional(force = true)
    public List<OutboxMapper.StaleLease> takeBackOwn(String relayId, int limit, int maxAttempts) {
        return mapper.releaseHeldBy(new String[] {relayId},
                "was restarted before it recorded an outcome; the new incarnation gave it back", limit, maxAttempts);
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
