package dev.outbox.persistence.consumer;

import java.util.List;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/**
 * The consumer framework's state beside {@code processed_messages}: the last version applied per
 * aggregate, messages held for their predecessor, failure counts, and at-most-once side effects.
 * Called inside the consumer's transaction; never annotate it {@code @Transactional}.
 */
public interface ConsumerStateMapper {

    @Insert("INSERT INTO consumer_aggregate_positions (consumer_name, aggregate_type, aggregate_id, last_version)"
            + " VALUES (#{consumer}, #{type}, #{id}, 0) ON CONFLICT DO NOTHING")
    int ensurePosition(
            @Param("consumer") String consumer, @Param("type") String aggregateType, @Param("id") String aggregateId);

    /** Reads the position and locks it: consumers of the same aggregate take turns here. */
    @Select("SELECT last_version FROM consumer_aggregate_positions WHERE consumer_name = #{consumer}"
            + " AND aggregate_type = #{type} AND aggregate_id = #{id} FOR UPDATE")
    long lockPosition(
            @Param("consumer") String consumer, @Param("type") String aggregateType, @Param("id") String aggregateId);

    @Update("UPDATE consumer_aggregate_positions SET last_version = #{version}, updated_at = now()"
            + " WHERE consumer_name = #{consumer} AND aggregate_type = #{type} AND aggregate_id = #{id}")
    int updatePosition(
            @Param("consumer") String consumer,
            @Param("type") String aggregateType,
            @Param("id") String aggregateId,
            @Param("version") long version);

    @Select("SELECT last_version FROM consumer_aggregate_positions WHERE consumer_name = #{consumer}"
            + " AND aggregate_type = #{type} AND aggregate_id = #{id}")
    Long position(
            @Param("consumer") String consumer, @Param("type") String aggregateType, @Param("id") String aggregateId);

    /** @return 1 when held, 0 when a message for this version is already held */
    @Insert("INSERT INTO consumer_held_messages (consumer_name, aggregate_type, aggregate_id, aggregate_version,"
            + " message_id, message_type, message_version, correlation_id, headers, body) VALUES (#{consumerName},"
            + " #{aggregateType}, #{aggregateId}, #{aggregateVersion}, #{messageId}, #{messageType}, #{messageVersion},"
            + " #{correlationId,jdbcType=VARCHAR}, CAST(#{headers} AS jsonb), #{body}) ON CONFLICT DO NOTHING")
    int hold(HeldMessage message);

    /**
     * Removes and returns one held message, or null when it is no longer held (another consumer
     * instance applied or dead-lettered it).
     */
    @Select("DELETE FROM consumer_held_messages WHERE consumer_name = #{consumer} AND aggregate_type = #{type}"
            + " AND aggregate_id = #{id} AND aggregate_version = #{version} AND message_id = #{messageId}"
            + " RETURNING consumer_name, aggregate_type, aggregate_id, aggregate_version, message_id, message_type,"
            + " message_version, correlation_id, headers::text AS headers, body")
    HeldMessage takeHeld(
            @Param("consumer") String consumer,
            @Param("type") String aggregateType,
            @Param("id") String aggregateId,
            @Param("version") long version,
            @Param("messageId") String messageId);

    /** The held message that comes right after the aggregate's position, or null. */
    @Select("SELECT h.consumer_name, h.aggregate_type, h.aggregate_id, h.aggregate_version, h.message_id,"
            + " h.message_type, h.message_version, h.correlation_id, h.headers::text AS headers, h.body"
            + " FROM consumer_aggregate_positions p JOIN consumer_held_messages h"
            + " ON h.consumer_name = p.consumer_name AND h.aggregate_type = p.aggregate_type"
            + " AND h.aggregate_id = p.aggregate_id AND h.aggregate_version = p.last_version + 1"
            + " WHERE p.consumer_name = #{consumer} AND p.aggregate_type = #{type} AND p.aggregate_id = #{id}")
    HeldMessage nextHeld(
            @Param("consumer") String consumer, @Param("type") String aggregateType, @Param("id") String aggregateId);

    /** True when the message right after the aggregate's position is held, ready to be applied. */
    @Select("SELECT EXISTS (SELECT 1 FROM consumer_aggregate_positions p JOIN consumer_held_messages h"
            + " ON h.consumer_name = p.consumer_name AND h.aggregate_type = p.aggregate_type"
            + " AND h.aggregate_id = p.aggregate_id AND h.aggregate_version = p.last_version + 1"
            + " WHERE p.consumer_name = #{consumer} AND p.aggregate_type = #{type} AND p.aggregate_id = #{id})")
    boolean successorHeld(
            @Param("consumer") String consumer, @Param("type") String aggregateType, @Param("id") String aggregateId);

    @Select("SELECT count(*) FROM consumer_held_messages WHERE consumer_name = #{consumer}")
    long countHeld(@Param("consumer") String consumer);

    /** Counts one more failed attempt; returns the attempts so far. */
    @Select("INSERT INTO consumer_failures (consumer_name, message_id, attempts, last_error)"
            + " VALUES (#{consumer}, #{messageId}, 1, #{error})"
            + " ON CONFLICT (consumer_name, message_id) DO UPDATE SET attempts = consumer_failures.attempts + 1,"
            + " last_error = EXCLUDED.last_error, last_failed_at = now() RETURNING attempts")
    int recordFailure(
            @Param("consumer") String consumer, @Param("messageId") String messageId, @Param("error") String error);

    @Update("INSERT INTO consumer_failures (consumer_name, message_id, attempts, last_error, dead_lettered_at)"
            + " VALUES (#{consumer}, #{messageId}, 1, #{error}, now()) ON CONFLICT (consumer_name, message_id)"
            + " DO UPDATE SET dead_lettered_at = now(), last_error = EXCLUDED.last_error")
    int markDeadLettered(
            @Param("consumer") String consumer, @Param("messageId") String messageId, @Param("error") String error);

    @Insert("INSERT INTO consumer_side_effects (consumer_name, message_id, effect, status)"
            + " VALUES (#{consumer}, #{messageId}, #{effect}, 'PENDING')")
    int beginSideEffect(
            @Param("consumer") String consumer, @Param("messageId") String messageId, @Param("effect") String effect);

    @Update("UPDATE consumer_side_effects SET status = 'DONE', completed_at = now() WHERE consumer_name = #{consumer}"
            + " AND message_id = #{messageId} AND effect = #{effect} AND status = 'PENDING'")
    int completeSideEffect(
            @Param("consumer") String consumer, @Param("messageId") String messageId, @Param("effect") String effect);

    @Select("SELECT consumer_name, message_id, effect, started_at FROM consumer_side_effects WHERE status = 'PENDING'"
            + " AND started_at < now() - #{olderThanMillis} * interval '1 millisecond' ORDER BY started_at")
    List<PendingSideEffect> pendingSideEffects(@Param("olderThanMillis") long olderThanMillis);
}
