package dev.outbox.ledger;

import dev.outbox.config.Settings;
import dev.outbox.consumer.ConsumerApp;
import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.persistence.retention.RetentionTarget;
import java.util.List;

/**
 * The sample ledger consumer's registration: its handler ({@link LedgerHandler}, which books
 * captured and refunded payments exactly once in effect), its mapper, the retention of its
 * journal, its queue (declared by
 * {@code topology/ledger.order-events.queue.json}), its settings ({@code OUTBOX_LEDGER_*}) and
 * its HTTP port (8082). Everything else is {@link ConsumerApp}'s.
 */
public final class LedgerConsumer {
    /** The consumer's name: its dedupe records and journal rows carry it. */
    public static final String NAME = "ledger";

    /** Its queue, declared by {@code topology/ledger.order-events.queue.json}. */
    public static final String QUEUE = "ledger.order-events";

    /** The journal is kept as long as the dedupe records: a replay within that window is explainable. */
    static final RetentionTarget<LedgerMapper> JOURNAL_RETENTION = new RetentionTarget<>(
            "ledger_journal",
            LedgerMapper.class,
            (m, policy) -> m.deleteJournalOlderThan(policy.processedAge().toMillis(), policy.batchSize()));

    public static final ConsumerRegistration REGISTRATION = new ConsumerRegistration(
            NAME, QUEUE, "LEDGER", LedgerHandler.class, List.of(LedgerMapper.class), 8082, List.of(JOURNAL_RETENTION));

    private LedgerConsumer() {}

    public static ConsumerApp start(Settings settings) {
        return ConsumerApp.start(settings, REGISTRATION);
    }
}
