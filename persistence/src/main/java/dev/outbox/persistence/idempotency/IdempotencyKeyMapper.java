package dev.outbox.persistence.idempotency;

import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** {@code idempotency_keys}; called inside the business transaction of the write it protects. */
public interface IdempotencyKeyMapper {

    /**
     * Claims the key for this transaction: a new key, or one whose retention has passed. A
     * concurrent transaction claiming the same key waits here until this one ends.
     *
     * @return true when claimed, null when the key is held by a (committed) earlier request
     */
    @Select("INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, expires_at)"
            + " VALUES (#{scope}, #{key}, #{hash}, now() + #{retentionMillis} * interval '1 millisecond')"
            + " ON CONFLICT (scope, idempotency_key) DO UPDATE SET request_hash = EXCLUDED.request_hash,"
            + " response_status = NULL, response_body = NULL, response_location = NULL, created_at = now(),"
            + " expires_at = EXCLUDED.expires_at WHERE idempotency_keys.expires_at <= now() RETURNING true")
    Boolean claim(
            @Param("scope") String scope,
            @Param("key") String key,
            @Param("hash") String requestHash,
            @Param("retentionMillis") long retentionMillis);

    @Select("SELECT scope, idempotency_key, request_hash, response_status, response_body, response_location,"
            + " created_at, expires_at FROM idempotency_keys WHERE scope = #{scope} AND idempotency_key = #{key}")
    StoredIdempotencyKey find(@Param("scope") String scope, @Param("key") String key);

    @Update("UPDATE idempotency_keys SET response_status = #{status}, response_body = #{body},"
            + " response_location = #{location,jdbcType=VARCHAR} WHERE scope = #{scope} AND idempotency_key = #{key}")
    int complete(
            @Param("scope") String scope,
            @Param("key") String key,
            @Param("status") int status,
            @Param("body") String body,
            @Param("location") String location);
}
