package dev.outbox.persistence.retention;

import java.util.Objects;

/**
 * One table that retention keeps short: its name (the {@code table} tag of
 * {@code outbox.retention.deleted}), the MyBatis mapper that holds its delete, and that delete.
 * Each call deletes at most one batch of rows older than the policy allows and returns how many
 * it deleted; {@link RetentionRun} calls it until a batch comes back short. The product's own
 * tables are {@link RetentionRun#productTables()}; a consumer adds its own through its
 * registration, so nothing shared has to name a consumer's tables.
 */
public record RetentionTarget<M>(String table, Class<M> mapper, BatchDelete<M> delete) {
    public RetentionTarget {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(mapper, "mapper");
        Objects.requireNonNull(delete, "delete");
    }

    /**
     * A consumer's own table, as its registration names it: pruned at the dedupe records' age
     * ({@code OUTBOX_RETENTION_PROCESSED_AGE}), so what it holds about a message lasts as long as
     * the record that the message was processed.
     */
    public static <M> RetentionTarget<M> of(dev.outbox.consumer.RetainedTable<M> table) {
        return new RetentionTarget<>(
                table.table(),
                table.mapper(),
                (m, policy) -> table.delete().deleteBatch(m, policy.processedAge(), policy.batchSize()));
    }

    /** Deletes one batch through the mapper; returns the number of rows deleted. */
    @FunctionalInterface
    public interface BatchDelete<M> {
        int deleteBatch(M mapper, RetentionPolicy policy);
    }

    int deleteBatch(org.apache.ibatis.session.SqlSession session, RetentionPolicy policy) {
        return delete.deleteBatch(session.getMapper(mapper), policy);
    }
}
