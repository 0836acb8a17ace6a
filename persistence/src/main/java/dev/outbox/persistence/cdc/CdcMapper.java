package dev.outbox.persistence.cdc;

import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Param;

/**
 * The CDC relay's statements (OUTBOX_RELAY_MODE=cdc): its replication slot, its position, and the
 * outcome of each row it published from the stream. The stream's rows carry no lease (they were
 * never claimed): an outcome is written only while the row is still {@code PENDING}, so a row an
 * operator cancelled, or that the retry path claimed meanwhile, keeps what they decided.
 */
public interface CdcMapper {
    /** The slot's state, or null when there is no slot of that name. */
    CdcSlotView slot(@Param("name") String name);

    /** Creates a logical slot for pgoutput at the current WAL position; returns that position. */
    String createSlot(@Param("name") String name);

    void dropSlot(@Param("name") String name);

    String walLevel();

    /** Whether {@code publication} publishes this schema's {@code message_outbox}. */
    boolean publishesOutbox(@Param("publication") String publication);

    /** Puts {@code message_outbox} (back) into the publication; needs ownership of both. */
    void addOutboxTo(@Param("publication") String publication);

    /**
     * Writes a tick into the WAL (a non-transactional logical decoding message): the xmin of a
     * snapshot taken now and the time. Every transaction whose id precedes that xmin has committed
     * (or aborted) before the tick, so it comes through the stream before the tick does.
     */
    String emitTick(@Param("prefix") String prefix);

    CdcPosition position(@Param("slot") String slot);

    /**
     * The position of a slot just created: everything committed before it (every transaction
     * preceding a snapshot taken now) is the retry path's, since the slot's stream will not have it.
     */
    void startPosition(@Param("slot") String slot, @Param("relayId") String relayId);

    void savePosition(
            @Param("slot") String slot,
            @Param("relayId") String relayId,
            @Param("streamXmin") long streamXmin,
            @Param("confirmedLsn") String confirmedLsn,
            @Param("streamTimeMicros") long streamTimeMicros);

    /** Marks published those of {@code ids} that are still PENDING; returns those it marked. */
    List<CdcWrite> markPublished(@Param("ids") UUID[] ids);

    /**
     * Records failed attempts of rows still PENDING: retry ({@code delaysMillis} >= 0) or park
     * ({@code delaysMillis} < 0); returns the rows it changed.
     */
    List<CdcWrite> recordFailures(
            @Param("ids") UUID[] ids,
            @Param("codes") String[] codes,
            @Param("messages") String[] messages,
            @Param("delaysMillis") Long[] delaysMillis);

    /**
     * Of the given rows (by 1-based position in the arrays), those with an earlier version of their
     * aggregate that is neither published nor cancelled, or whose row left behind ({@code leftIds},
     * may hold nulls) this session does not see finished: they must wait for it.
     */
    List<Integer> heldBehindEarlierVersions(
            @Param("aggregateTypes") String[] aggregateTypes,
            @Param("aggregateIds") String[] aggregateIds,
            @Param("versions") Long[] versions,
            @Param("leftIds") UUID[] leftIds);
}
