package dev.outbox.persistence.outbox;

import dev.outbox.jdbc.NewOutboxMessage;
import org.apache.ibatis.annotations.Insert;

/**
 * The outbox's insert alone, for the MyBatis-Guice adapter: added to the configuration of a
 * service's own {@code MyBatisModule}, where the outbox's mapper is not. A MyBatis statement, not a
 * raw JDBC one, so the session knows it wrote (mybatis-guice commits a session only then), and the
 * service's statement timeout, plugins and batching apply to it as to its own statements. Only
 * types every MyBatis configuration handles: the id goes to the driver as it is (setObject; pgjdbc binds a UUID as uuid).
 */
public interface OutboxInsertMapper {
    /** The insert, for this mapper and {@link OutboxMapper#insert}: one text for both. */
    String INSERT = "INSERT INTO message_outbox ("
            + " id, aggregate_type, aggregate_id, aggregate_version, message_type, message_version,"
            + " exchange_name, routing_key, payload, headers, status, created_at, next_attempt_at,"
            + " correlation_id, causation_id, trace_id, tenant_id)"
            + " VALUES ("
            + " #{id,typeHandler=org.apache.ibatis.type.ObjectTypeHandler}, #{aggregateType}, #{aggregateId}, #{aggregateVersion,jdbcType=BIGINT}, #{messageType},"
            + " #{messageVersion}, #{exchangeName}, #{routingKey}, CAST(#{payload} AS jsonb), CAST(#{headers} AS jsonb),"
            + " 'PENDING', clock_timestamp(), now(),"
            + " #{correlationId,jdbcType=VARCHAR}, #{causationId,jdbcType=VARCHAR}, #{traceId,jdbcType=VARCHAR},"
            + " #{tenantId,jdbcType=VARCHAR})";

    @Insert(INSERT)
    int insert(NewOutboxMessage message);
}
