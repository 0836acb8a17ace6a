package dev.outbox.consumer.runtime;

import java.util.List;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** A test consumer's effect: one row per applied message, in apply order (a sequence). */
public interface AppliedEffectMapper {
    String DDL = "CREATE TABLE IF NOT EXISTS test_applied_effects (seq BIGINT GENERATED ALWAYS AS IDENTITY,"
            + " consumer_name TEXT NOT NULL, aggregate_id TEXT, aggregate_version BIGINT, message_id TEXT NOT NULL)";

    @Update(DDL)
    void createTable();

    @Insert("INSERT INTO test_applied_effects (consumer_name, aggregate_id, aggregate_version, message_id)"
            + " VALUES (#{consumer}, #{aggregateId,jdbcType=VARCHAR}, #{version,jdbcType=BIGINT}, #{messageId})")
    int record(
            @Param("consumer") String consumer,
            @Param("aggregateId") String aggregateId,
            @Param("version") Long version,
            @Param("messageId") String messageId);

    @Select("SELECT aggregate_version FROM test_applied_effects WHERE aggregate_id = #{aggregateId} ORDER BY seq")
    List<Long> versionsInApplyOrder(@Param("aggregateId") String aggregateId);

    /** Makes every later statement of the current transaction time out after {@code timeout} (e.g. '100ms'). */
    @Select("SELECT set_config('statement_timeout', #{timeout}, true)")
    String statementTimeoutForThisTransaction(@Param("timeout") String timeout);

    /** Runs for {@code seconds}: with a shorter statement timeout, PostgreSQL cancels it (57014). */
    @Select("SELECT 1 FROM pg_sleep(#{seconds})")
    Integer sleep(@Param("seconds") double seconds);
}
