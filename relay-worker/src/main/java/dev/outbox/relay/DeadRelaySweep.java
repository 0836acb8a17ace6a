package dev.outbox.relay;

import dev.outbox.kernel.outbox.OutboxStatus;
import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.outbox.OutboxMapper;
import dev.outbox.persistence.relay.RelayRegistry;
import io.micrometer.core.instrument.Counter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rows of relays that died, given back ({@link RelayLiveness}): those of registered relays
 * whose liveness lock nobody holds and whose heartbeat is older than the grace, due now and
 * without counting the attempt ({@code STALE_LOCK} the first time, {@code RELAY_DIED} when given
 * back before), and, once at start, those this relay id's previous incarnation left.
 */
final class DeadRelaySweep {
    private static final Logger LOG = LoggerFactory.getLogger(DeadRelaySweep.class);
    private static final int RELEASE_BATCH = 1_000;
    /** Forgetting long-dead relays is housekeeping: once every this many sweeps is plenty. */
    private static final int FORGET_EVERY = 300;

    private final LivenessConfig config;
    private final String relayId;
    private final RelayRegistry registry;
    private final int maxAttempts;
    private final Runnable wakeUp;
    private final Counter recovered;
    private final Counter errors;
    private final BooleanSupplier judging;
    private final AtomicLong sweeps = new AtomicLong();

    /** @param judging true while this relay may judge others: it holds its own lock, and has for the grace */
    DeadRelaySweep(
            LivenessConfig config,
            String relayId,
            RelayRegistry registry,
            int maxAttempts,
            Runnable wakeUp,
            Counter recovered,
            Counter errors,
            BooleanSupplier judging) {
        this.config = config;
        this.relayId = relayId;
        this.registry = registry;
        this.maxAttempts = maxAttempts;
        this.wakeUp = wakeUp;
        this.recovered = recovered;
        this.errors = errors;
        this.judging = judging;
    }

    /** Completed sweeps, whether or not they found a dead relay. */
    long sweeps() {
        return sweeps.get();
    }

    /** Runs before the gate first opens: nothing of this process is leased yet. */
    void takeBackOwnRows() {
        int total = 0;
        List<OutboxMapper.StaleLease> batch;
        do {
            batch = registry.takeBackOwn(relayId, RELEASE_BATCH, maxAttempts);
            total += batch.size();
            batch.forEach(DeadRelaySweep::logReleased);
        } while (batch.size() == RELEASE_BATCH);
        if (total > 0) {
            recovered.increment(total);
            LOG.warn(
                    "relay {} took back {} row(s) its previous incarnation had leased and not recorded (STALE_LOCK, or RELAY_DIED if given back before);"
                            + " they are due now and may be published a second time (consumers deduplicate on messageId)",
                    relayId,
                    total);
            wakeUp.run();
        }
    }

    /** One sweep; whatever it meets is caught and counted, and the next one runs on schedule. */
    void sweep() {
        try {
            if (!judging.getAsBoolean()) {
                // a relay without its own lock is the suspect one and leaves the judging to others; one
                // that just took it (start, or back after a failover that cut every session) gives peers
                // the same grace to take theirs again before anything of theirs is judged
                return;
            }
            Map<String, Integer> byRelay = new TreeMap<>();
            List<OutboxMapper.StaleLease> batch;
            do {
                batch = registry.releaseDeadRelays(relayId, config.grace(), RELEASE_BATCH, maxAttempts);
                for (OutboxMapper.StaleLease s : batch) {
                    byRelay.merge(s.lockedBy(), 1, Integer::sum);
                    logReleased(s);
                }
            } while (batch.size() == RELEASE_BATCH);
            if (!byRelay.isEmpty()) {
                int total =
                        byRelay.values().stream().mapToInt(Integer::intValue).sum();
                recovered.increment(total);
                LOG.warn(
                        "relay(s) died holding leases (their liveness lock is free and they were silent for over {}"
                                + " ms): gave back {} row(s), due now (STALE_LOCK; RELAY_DIED, published alone, for rows given back before): {}",
                        config.grace().toMillis(),
                        total,
                        byRelay);
                wakeUp.run();
            }
            if (sweeps.incrementAndGet() % FORGET_EVERY == 0) {
                List<String> forgotten = registry.forgetDead(config.forgetAfter());
                if (!forgotten.isEmpty()) {
                    LOG.info(
                            "forgot {} relay(s) dead for over {}: {}",
                            forgotten.size(),
                            config.forgetAfter(),
                            forgotten);
                }
            }
        } catch (DataAccessException e) {
            errors.increment();
            LOG.warn("dead-relay sweep skipped: {}", e.getMessage());
        } catch (Throwable e) { // NOPMD: a scheduled task that throws is never run again; an Error included
            errors.increment();
            LOG.error(
                    "dead-relay sweep failed; it runs again in {} ms",
                    config.checkInterval().toMillis(),
                    e);
        }
    }

    private static void logReleased(OutboxMapper.StaleLease s) {
        org.slf4j.MDC.put("message_id", s.id().toString());
        try {
            if (s.is(OutboxStatus.PARKED)) {
                LOG.error(
                        "parked message_id={}: the relay holding it died again ({}), and its attempts are spent;"
                                + " it may be what kills relays (RELAY_DIED)",
                        s.id(),
                        s.lockedBy());
            } else {
                LOG.debug("gave back message_id={} of dead relay {}: now {}", s.id(), s.lockedBy(), s.status());
            }
        } finally {
            org.slf4j.MDC.remove("message_id");
        }
    }
}
