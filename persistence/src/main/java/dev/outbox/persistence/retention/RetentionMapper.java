package dev.outbox.persistence.retention;

import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/**
 * Retention's SQL: each delete takes at most one batch, found through an index on the time the
 * row finished, so a run never holds many locks or writes a huge transaction. Only finished
 * outbox rows ({@code PUBLISHED}, {@code CANCELLED}) are ever deleted.
 */
public interface RetentionMapper {

    @Select("SELECT pg_try_advisory_lock(#{key})")
    boolean tryLock(@Param("key") long key);

    @Select("SELECT pg_advisory_unlock(#{key})")
    boolean unlock(@Param("key") long key);

    @Delete("DELETE FROM message_outbox WHERE id IN (SELECT id FROM message_outbox WHERE status = 'PUBLISHED'"
            + " AND published_at < now() - #{ageMillis} * interval '1 millisecond' LIMIT #{batch})"
            + " AND status = 'PUBLISHED'")
    int deletePublished(@Param("ageMillis") long ageMillis, @Param("batch") int batch);

    @Delete("DELETE FROM message_outbox WHERE id IN (SELECT id FROM message_outbox WHERE status = 'CANCELLED'"
            + " AND (cancelled_at < now() - #{ageMillis} * interval '1 millisecond'"
            + "      OR (cancelled_at IS NULL AND created_at < now() - #{ageMillis} * interval '1 millisecond'))"
            + " LIMIT #{batch}) AND status = 'CANCELLED'")
    int deleteCancelled(@Param("ageMillis") long ageMillis, @Param("batch") int batch);

    @Delete("DELETE FROM processed_messages WHERE (consumer_name, message_id) IN (SELECT consumer_name, message_id"
            + " FROM processed_messages WHERE processed_at < now() - #{ageMillis} * interval '1 millisecond'"
            + " LIMIT #{batch})")
    int deleteProcessed(@Param("ageMillis") long ageMillis, @Param("batch") int batch);

    @Delete("DELETE FROM idempotency_keys WHERE (scope, idempotency_key) IN (SELECT scope, idempotency_key"
            + " FROM idempotency_keys WHERE expires_at < now() LIMIT #{batch})")
    int deleteExpiredIdempotencyKeys(@Param("batch") int batch);

    @Delete("DELETE FROM consumer_failures WHERE (consumer_name, message_id) IN (SELECT consumer_name, message_id"
            + " FROM consumer_failures WHERE last_failed_at < now() - #{ageMillis} * interval '1 millisecond'"
            + " LIMIT #{batch})")
    int deleteOldFailures(@Param("ageMillis") long ageMillis, @Param("batch") int batch);

    @Delete("DELETE FROM consumer_side_effects WHERE (consumer_name, message_id, effect) IN (SELECT consumer_name,"
            + " message_id, effect FROM consumer_side_effects WHERE status = 'DONE'"
            + " AND completed_at < now() - #{ageMillis} * interval '1 millisecond' LIMIT #{batch})")
    int deleteDoneSideEffects(@Param("ageMillis") long ageMillis, @Param("batch") int batch);
}
