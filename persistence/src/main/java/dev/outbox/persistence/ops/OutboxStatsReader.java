package dev.outbox.persistence.ops;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;
import org.mybatis.guice.transactional.Transactional;

/** Reads the outbox's numbers in one short read-only transaction. */
@Singleton
public class OutboxStatsReader {
    /** Stats plus parked rows per error code. */
    public record Snapshot(OutboxStats stats, Map<String, Long> parkedByErrorCode) {}

    private final OpsMapper ops;

    @Inject
    public OutboxStatsReader(OpsMapper ops) {
        this.ops = ops;
    }

    @Transactional
    public Snapshot read() {
        Map<String, Long> parked = new LinkedHashMap<>();
        for (CodeCount c : ops.parkedByErrorCode()) {
            parked.put(c.code(), c.count());
        }
        return new Snapshot(ops.stats(), parked);
    }
}
