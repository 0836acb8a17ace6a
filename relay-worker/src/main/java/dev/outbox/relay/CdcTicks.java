package dev.outbox.relay;

import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.cdc.CdcSlotView;
import dev.outbox.persistence.cdc.CdcStore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC stream's ticks and its silence: writes a tick into the WAL every {@link
 * CdcConfig#tickInterval} (a logical message carrying a snapshot's xmin, which the stream hands to
 * the retry path once it comes through, see {@link CdcTransactions#advance}), looks at the slot's
 * lag meanwhile, and ends a stream that delivered nothing for {@link CdcConfig#silence} while ticks
 * were written (a partition, a hung walsender). One per stream; stream thread only.
 */
final class CdcTicks {
    // the relay's log category: these lines are the CDC relay's, as they always were
    private static final Logger LOG = LoggerFactory.getLogger(CdcRelay.class);

    private final CdcConfig config;
    private final CdcStore store;
    private final CdcCounters counters;

    private long nextTick = 0;
    // when the first tick written since the stream last delivered anything was written (0:
    // none since): a stream busy replaying a backlog delivers messages, if not yet the ticks
    private long silentSince = 0;

    CdcTicks(CdcConfig config, CdcStore store, CdcCounters counters) {
        this.config = config;
        this.store = store;
        this.counters = counters;
    }

    /**
     * A tick, when one is due, and the stream's own liveness.
     *
     * @throws IllegalStateException when the stream delivered nothing for too long while ticks were written
     */
    void tickIfDue() {
        long now = System.nanoTime();
        if (now - nextTick >= 0) {
            nextTick = now + config.tickInterval().toNanos();
            try {
                store.emitTick(CdcConfig.TICK_PREFIX);
                if (silentSince == 0) {
                    silentSince = now;
                }
                CdcSlotView slot = store.slot(config.slot()).orElse(null);
                if (slot != null && slot.lagBytes() != null) {
                    counters.lagBytes = slot.lagBytes();
                }
            } catch (DataAccessException e) {
                LOG.debug("could not write a tick: {}", e.getMessage());
            }
            if (silentSince != 0 && now - silentSince > config.silence().toNanos()) {
                throw new IllegalStateException("the stream delivered nothing for "
                        + TimeUnit.NANOSECONDS.toMillis(now - silentSince) + " ms while ticks were written");
            }
        }
    }

    /** The stream delivered a message: it is not silent. */
    void delivered() {
        silentSince = 0;
    }
}
