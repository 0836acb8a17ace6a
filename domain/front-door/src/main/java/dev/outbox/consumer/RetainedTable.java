package dev.outbox.consumer;

import java.time.Duration;
import java.util.Objects;

/**
 * A table of a consumer's own that the runtime keeps short, beside the dedupe records: its name
 * (the {@code table} tag of {@code outbox.retention.deleted}), the MyBatis mapper that holds its
 * delete, and that delete. Each call deletes at most {@code batchSize} rows older than
 * {@code olderThan} and returns how many it deleted; the runtime calls it until a batch comes back
 * short, under the process's {@code OUTBOX_RETENTION_*} settings, with {@code olderThan} the
 * dedupe records' age ({@code OUTBOX_RETENTION_PROCESSED_AGE}).
 */
public record RetainedTable<M>(String table, Class<M> mapper, BatchDelete<M> delete) {
    public RetainedTable {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(mapper, "mapper");
        Objects.requireNonNull(delete, "delete");
    }

    /** Deletes one batch through the mapper; returns the number of rows deleted. */
    @FunctionalInterface
    public interface BatchDelete<M> {
        int deleteBatch(M mapper, Duration olderThan, int batchSize);
    }
}
