package dev.outbox.persistence.metrics;

import dev.outbox.persistence.DataAccessException;
import dev.outbox.persistence.relay.RelayRegistry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox_relays_live}: registered relays whose liveness lock is held now (migration V7).
 * Read from {@code pg_locks}, so a scrape reuses the count for {@code ttl}; NaN while the
 * database cannot be read.
 */
public final class RelayGauges {
    private static final Logger LOG = LoggerFactory.getLogger(RelayGauges.class);

    private final RelayRegistry registry;
    private final long ttlNanos;
    private double live = Double.NaN;
    private long readAtNanos;
    private boolean read;
    private boolean failing;

    private RelayGauges(RelayRegistry registry, Duration ttl) {
        this.registry = registry;
        this.ttlNanos = ttl.toNanos();
    }

    public static RelayGauges register(MeterRegistry meters, RelayRegistry registry, Duration ttl) {
        RelayGauges g = new RelayGauges(registry, ttl);
        Gauge.builder("outbox.relays.live", g, RelayGauges::live)
                .strongReference(true)
                .description("registered relays alive now (their liveness lock is held)")
                .register(meters);
        return g;
    }

    synchronized double live() {
        long now = System.nanoTime();
        if (!read || now - readAtNanos > ttlNanos) {
            try {
                live = registry.live();
                if (failing) {
                    LOG.info("live relay count readable again");
                }
                failing = false;
            } catch (DataAccessException e) {
                if (!failing) {
                    LOG.warn("live relay count unavailable: {}", e.getMessage());
                }
                failing = true;
                live = Double.NaN;
            }
            read = true;
            readAtNanos = now;
        }
        return live;
    }
}
