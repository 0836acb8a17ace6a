package dev.outbox.sample.ledger;

import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/** The sample ledger consumer's effect. */
public interface LedgerMapper {

    /**
     * Books an entry unless one already exists for the same payment and entry type: the business
     * key dedupes the effect even when two different messages ask for it.
     *
     * @return 1 when booked, 0 when the business key already had an entry
     */
    @Insert("INSERT INTO ledger_entries (id, order_id, payment_id, entry_type, amount, currency, message_id)"
            + " VALUES (#{id}, #{orderId}, #{paymentId}, #{entryType}, #{amount}, #{currency}, #{messageId})"
            + " ON CONFLICT ON CONSTRAINT ledger_entries_one_per_payment_and_type DO NOTHING")
    int insertIfAbsent(LedgerEntry entry);

    /**
     * Records that {@code instanceId} of consumer {@code consumerName} applied a message, in the
     * transaction of its effect: the journal holds exactly what committed, in the order applied.
     */
    @Insert("INSERT INTO ledger_journal (consumer_name, instance_id, aggregate_type, aggregate_id, aggregate_version,"
            + " message_id, message_type) VALUES (#{consumerName}, #{instanceId}, #{aggregateType}, #{aggregateId},"
            + " #{aggregateVersion}, #{messageId}, #{messageType})")
    void journal(
            @Param("consumerName") String consumerName,
            @Param("instanceId") String instanceId,
            @Param("aggregateType") String aggregateType,
            @Param("aggregateId") String aggregateId,
            @Param("aggregateVersion") Long aggregateVersion,
            @Param("messageId") String messageId,
            @Param("messageType") String messageType);

    /**
     * Retention of the journal: one batch of rows applied longer ago than {@code ageMillis},
     * oldest first along its key, so a batch reads only what it deletes.
     */
    @Delete("DELETE FROM ledger_journal WHERE seq IN (SELECT seq FROM ledger_journal"
            + " WHERE applied_at < now() - #{ageMillis} * interval '1 millisecond' ORDER BY seq LIMIT #{batch})")
    int deleteJournalOlderThan(@Param("ageMillis") long ageMillis, @Param("batch") int batch);

    @Select("SELECT id, order_id, payment_id, entry_type, amount, currency, message_id, booked_at"
            + " FROM ledger_entries WHERE order_id = #{orderId} ORDER BY entry_seq")
    List<LedgerEntry> findByOrder(@Param("orderId") UUID orderId);
}
