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

    /** Deletes one batch through the mapper; returns the number of rows deleted. */
    @FunctionalInterface
    public interface BatchDelete<M> {
        int deleteBatch(M mapper, RetentionPolicy policy);
    }

    int deleteBatch(org.apache.ibatis.session.SqlSession session, RetentionPolicy policy) {
        return delete.deleteBatch(session.getMapper(mapper), policy);
    }
}
