package dev.outbox.sample.ledger;

import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.consumer.OutboxConsumer;
import dev.outbox.consumer.RetainedTable;

/**
 * The sample ledger consumer: its handler ({@link LedgerHandler}, which books captured and
 * refunded payments exactly once in effect), its mapper, the retention of its journal, its queue
 * (declared by {@code topology/ledger.order-events.queue.json}), its settings
 * ({@code OUTBOX_LEDGER_*}) and its HTTP port (8082). The consumer runtime finds it through
 * {@code META-INF/services/dev.outbox.consumer.OutboxConsumer} and runs it
 * ({@code ConsumerMain ledger}); its tables ({@code ledger_entries}, {@code ledger_journal}) are
 * its own migrations' ({@code db/ledger}, history {@code flyway_ledger_history}). The outbox's
 * scripts V1, V2 and V8 still create them too, in the same shape, so its script creates them only
 * where they are missing.
 */
public final class LedgerConsumer implements OutboxConsumer {
    /** The consumer's name: its dedupe records and journal rows carry it. */
    public static final String NAME = "ledger";

    /** Its queue, declared by {@code topology/ledger.order-events.queue.json}. */
    public static final String QUEUE = "ledger.order-events";

    /** The journal is kept as long as the dedupe records: a replay within that window is explainable. */
    static final RetainedTable<LedgerMapper> JOURNAL_RETENTION = new RetainedTable<>(
            "ledger_journal",
            LedgerMapper.class,
            (m, olderThan, batchSize) -> m.deleteJournalOlderThan(olderThan.toMillis(), batchSize));

    public static final ConsumerRegistration REGISTRATION = ConsumerRegistration.builder(
                    NAME, QUEUE, LedgerHandler.class)
            .mappers(LedgerMapper.class)
            .migrations("classpath:db/ledger")
            .httpPort(8082)
            .retain(JOURNAL_RETENTION)
            .build();

    @Override
    public ConsumerRegistration registration() {
        return REGISTRATION;
    }
}
