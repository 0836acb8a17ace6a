package dev.outbox.persistence.consumer;

import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** A consumer's dedupe record: one row per (consumer, message id) it has applied. */
public interface ProcessedMessageMapper {

    /**
     * Records that {@code consumerName} applied {@code messageId}, inside the transaction of the
     * effect. {@code ON CONFLICT DO NOTHING} rather than catching a unique violation, because a
     * failed statement would abort the whole PostgreSQL transaction.
     *
     * @return 1 the first time, 0 for a duplicate
     */
    @Insert("INSERT INTO processed_messages (consumer_name, message_id) VALUES (#{consumerName}, #{messageId})"
            + " ON CONFLICT (consumer_name, message_id) DO NOTHING")
    int insertIfAbsent(@Param("consumerName") String consumerName, @Param("messageId") String messageId);

    /**
     * Forgets a message that was recorded but never applied (held, then dead-lettered), so that
     * the same message replayed from the dead-letter queue is applied rather than skipped.
     */
    @Delete("DELETE FROM processed_messages WHERE consumer_name = #{consumerName} AND message_id = #{messageId}")
    int delete(@Param("consumerName") String consumerName, @Param("messageId") String messageId);

    @Select("SELECT count(*) > 0 FROM processed_messages WHERE consumer_name = #{consumerName}"
            + " AND message_id = #{messageId}")
    boolean exists(@Param("consumerName") String consumerName, @Param("messageId") String messageId);
}
