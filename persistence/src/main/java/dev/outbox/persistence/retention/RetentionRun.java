package dev.outbox.persistence.retention;

import dev.outbox.persistence.DataAccessTranslation;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.apache.ibatis.exceptions.PersistenceException;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass of retention over a list of {@link RetentionTarget}s. It takes a session-level advisory
 * lock on a connection of its own and runs every batch on that connection, so across any number
 * of processes one pass over the same targets runs at a time; a process that finds the lock taken
 * skips its turn. Each batch commits on its own, with a pause between batches so a large cleanup
 * never competes with the relay for long.
 */
public class RetentionRun {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionRun.class);
    /** The relay's advisory lock key: "outbox-retention", any constant agreed by all processes. */
    public static final long LOCK_KEY = 0x6f7574626f78L;

    /** What a pass did; {@code ran} is false when another process held the lock. */
    public record Result(boolean ran, Map<String, Long> deleted) {
        public long total() {
            return deleted.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final DataSource dataSource;
    private final SqlSessionFactory sessions;
    private final long lockKey;
    private final List<RetentionTarget<?>> targets;

    public RetentionRun(
            DataSource dataSource, SqlSessionFactory sessions, long lockKey, List<RetentionTarget<?>> targets) {
        this.dataSource = dataSource;
        this.sessions = sessions;
        this.lockKey = lockKey;
        this.targets = List.copyOf(targets);
    }

    /**
     * The advisory lock key of a consumer's own pass: distinct per consumer name and from
     * {@link #LOCK_KEY}, so a consumer's pruning never makes the relay skip its turn.
     */
    public static long lockKeyFor(String consumer) {
        return (0x636f6e73L << 32) | (consumer.hashCode() & 0xffffffffL);
    }

    /** The relay's pass: the product's own tables, under {@link #LOCK_KEY}. */
    public static RetentionRun forProduct(DataSource dataSource, SqlSessionFactory sessions) {
        return new RetentionRun(dataSource, sessions, LOCK_KEY, productTables());
    }

    /**
     * The tables of the outbox itself: finished outbox rows after the outbox age; dedupe records,
     * consumer failures and finished side effects after the (longer) processed age; idempotency
     * keys once expired.
     */
    public static List<RetentionTarget<?>> productTables() {
        return List.of(
                new RetentionTarget<>(
                        "message_outbox.published",
                        RetentionMapper.class,
                        (m, p) -> m.deletePublished(p.outboxAge().toMillis(), p.batchSize())),
                new RetentionTarget<>(
                        "message_outbox.cancelled",
                        RetentionMapper.class,
                        (m, p) -> m.deleteCancelled(p.outboxAge().toMillis(), p.batchSize())),
                new RetentionTarget<>(
                        "processed_messages",
                        RetentionMapper.class,
                        (m, p) -> m.deleteProcessed(p.processedAge().toMillis(), p.batchSize())),
                new RetentionTarget<>(
                        "idempotency_keys",
                        RetentionMapper.class,
                        (m, p) -> m.deleteExpiredIdempotencyKeys(p.batchSize())),
                new RetentionTarget<>(
                        "consumer_failures",
                        RetentionMapper.class,
                        (m, p) -> m.deleteOldFailures(p.processedAge().toMillis(), p.batchSize())),
                new RetentionTarget<>(
                        "consumer_side_effects",
                        RetentionMapper.class,
                        (m, p) -> m.deleteDoneSideEffects(p.processedAge().toMillis(), p.batchSize())));
    }

    /** The tables this pass covers, in the order it runs them. */
    public List<String> tables() {
        return targets.stream().map(RetentionTarget::table).toList();
    }

    public Result run(RetentionPolicy policy) throws InterruptedException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (SqlSession session = sessions.openSession(connection)) {
                RetentionMapper m = session.getMapper(RetentionMapper.class);
                if (!m.tryLock(lockKey)) {
                    LOG.debug("retention skipped: another process is running it");
                    return new Result(false, Map.of());
                }
                try {
                    Map<String, Long> deleted = new LinkedHashMap<>();
                    for (RetentionTarget<?> target : targets) {
                        deleted.put(target.table(), drain(() -> target.deleteBatch(session, policy), policy));
                    }
                    return new Result(true, deleted);
                } finally {
                    m.unlock(lockKey);
                }
            }
        } catch (SQLException e) {
            throw DataAccessTranslation.translate(e);
        } catch (PersistenceException e) {
            throw DataAccessTranslation.translate(e);
        }
    }

    private static long drain(IntSupplier batch, RetentionPolicy policy) throws InterruptedException {
        long total = 0;
        int n;
        while ((n = batch.getAsInt()) > 0) {
            total += n;
            if (n < policy.batchSize()) {
                break;
            }
            // a throttle, not a wait: give the relay's statements room between batches
            Thread.sleep(policy.pause().toMillis());
        }
        return total;
    }
}
