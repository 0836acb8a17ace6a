package dev.outbox.persistence.ops;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;
import org.mybatis.guice.transactional.Transactional;

/** Reads the outbox's numbers in one short read-only transaction. */
@Singleton
public class OutboxStatsReader {
    /**
     * Stats, parked rows per error code, and rows per status this version does not know (a newer
     * version's). Codes and statuses are the stored text, so an unknown one is counted under its
     * own name rather than lost.
     */
    public record Snapshot(OutboxStats stats, Map<String, Long> parkedByErrorCode, Map<String, Long> unknownStatuses) {}

    private final OpsMapper ops;

    @Inject
    public OutboxStatsReader(OpsMapper ops) {
        this.ops = ops;
    }

    @Transactional
    public Snapshot read() {
        return new Snapshot(ops.stats(), byCode(ops.parkedByErrorCode()), byCode(ops.unknownStatusCounts()));
    }

    private static Map<String, Long> byCode(Iterable<CodeCount> counts) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (CodeCount c : counts) {
            out.put(c.code(), c.count());
        }
        return out;
    }
}
