package dev.outbox.persistence.retention;

import com.google.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass of retention. It takes a session-level advisory lock on a connection of its own and
 * runs every batch on that connection, so across any number of relay processes one pass runs at
 * a time; a process that finds the lock taken skips its turn. Each batch commits on its own,
 * with a pause between batches so a large cleanup never competes with the relay for long.
 */
public class RetentionRun {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionRun.class);
    /** The advisory lock key: "outbox-retention", any constant agreed by all processes. */
    public static final long LOCK_KEY = 0x6f7574626f78L;

    /** What a pass did; {@code ran} is false when another process held the lock. */
    public record Result(boolean ran, Map<String, Long> deleted) {
        public long total() {
            return deleted.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final DataSource dataSource;
    private final SqlSessionFactory sessions;

    @Inject
    public RetentionRun(DataSource dataSource, SqlSessionFactory sessions) {
        this.dataSource = dataSource;
        this.sessions = sessions;
    }

    public Result run(RetentionPolicy policy) throws InterruptedException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (SqlSession session = sessions.openSession(connection)) {
                RetentionMapper m = session.getMapper(RetentionMapper.class);
                if (!m.tryLock(LOCK_KEY)) {
                    LOG.debug("retention skipped: another process is running it");
                    return new Result(false, Map.of());
                }
                try {
                    Map<String, Long> deleted = new LinkedHashMap<>();
                    long outboxAge = policy.outboxAge().toMillis();
                    long processedAge = policy.processedAge().toMillis();
                    int batch = policy.batchSize();
                    deleted.put("message_outbox.published", drain(() -> m.deletePublished(outboxAge, batch), policy));
                    deleted.put("message_outbox.cancelled", drain(() -> m.deleteCancelled(outboxAge, batch), policy));
                    deleted.put("processed_messages", drain(() -> m.deleteProcessed(processedAge, batch), policy));
                    deleted.put("idempotency_keys", drain(() -> m.deleteExpiredIdempotencyKeys(batch), policy));
                    deleted.put("consumer_failures", drain(() -> m.deleteOldFailures(processedAge, batch), policy));
                    deleted.put(
                            "consumer_side_effects", drain(() -> m.deleteDoneSideEffects(processedAge, batch), policy));
                    deleted.put("ledger_journal", drain(() -> m.deleteOldJournal(processedAge, batch), policy));
                    return new Result(true, deleted);
                } finally {
                    m.unlock(LOCK_KEY);
                }
            }
        } catch (SQLException e) {
            throw dev.outbox.persistence.DataAccessTranslation.translate(e);
        } catch (org.apache.ibatis.exceptions.PersistenceException e) {
            throw dev.outbox.persistence.DataAccessTranslation.translate(e);
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
