package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.inject.Guice;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.kernel.outbox.ErrorCode;
import dev.outbox.kernel.outbox.OutboxRecord;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import dev.outbox.persistence.outbox.Failure;
import dev.outbox.persistence.outbox.OutboxStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The recorder against PostgreSQL: a row the database refuses for good (a failure text with a
 * NUL character, which no PostgreSQL text column takes) does not hold back the outcomes batched
 * with it, and what committed before the refusal is not written twice; nor does a row whose mark
 * runs into the statement timeout every time.
 */
class OutcomeRecorderIT {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final OutboxFixtures fx = OutboxFixtures.create().reset();

    private OutcomeRecorder recorder;

    @AfterEach
    void close() throws InterruptedException {
        if (recorder != null) {
            recorder.stopAndFlush(Duration.ofSeconds(5));
        }
    }

    @Test
    void aRowTheDatabaseRefusesIsLeftLeasedAndEveryOtherOutcomeIsRecordedOnce() {
        for (int i = 0; i < 9; i++) {
            fx.insertRaw("test.recorded", "test.recorded", "orders.events", "{\"n\":" + i + "}");
        }
        OutboxStore store = fx.store();
        List<OutboxRecord> rows = store.claim("relay-it", 9);
        assertEquals(9, rows.size());
        RelayStats stats = new RelayStats();
        recorder = new OutcomeRecorder("relay-it", store, stats, 1_000, () -> {});
        // one batch: 3 published, 3 failed (one of them unwritable), 3 released
        for (int i = 0; i < 3; i++) {
            recorder.add(new OutcomeRecorder.Published(rows.get(i), 1_000));
        }
        OutboxRecord poison = rows.get(4);
        for (int i = 3; i < 6; i++) {
            OutboxRecord row = rows.get(i);
            String text = row == poison ? "broker said \u0000 here" : "basic.nack from the broker";
            recorder.add(new OutcomeRecorder.Failed(
                    row, Failure.retry(row.lease(), ErrorCode.NACKED, text, Duration.ofMinutes(5))));
        }
        for (int i = 6; i < 9; i++) {
            recorder.add(new OutcomeRecorder.Released(rows.get(i), null, null));
        }
        recorder.start();

        await().atMost(WAIT).until(() -> fx.count("status <> 'IN_PROGRESS'") == 8);
        Map<UUID, String> status = fx.db.rows("SELECT id, status FROM message_outbox").stream()
                .collect(Collectors.toMap(r -> (UUID) r.get("id"), r -> (String) r.get("status")));
        Function<Integer, String> of = i -> status.get(rows.get(i).id());
        for (int i = 0; i < 3; i++) {
            assertEquals("PUBLISHED", of.apply(i));
        }
        assertEquals("RETRYABLE_FAILED", of.apply(3));
        assertEquals("IN_PROGRESS", of.apply(4), "the refused row keeps its lease for stale-lease recovery");
        assertEquals("RETRYABLE_FAILED", of.apply(5));
        for (int i = 6; i < 9; i++) {
            assertEquals("PENDING", of.apply(i));
        }
        await().atMost(WAIT).until(() -> stats.outcomesUnrecorded() == 1);
        assertEquals(0, stats.lostLeases(), "the committed PUBLISHED marks were not written again");
        assertEquals(3, stats.released());
    }

    @Test
    void aRowWhoseMarkRunsIntoTheStatementTimeoutEveryTimeIsLeftLeasedAndEveryOtherOutcomeIsRecorded()
            throws Exception {
        for (int i = 0; i < 6; i++) {
            fx.insertRaw("test.recorded", "test.recorded", "orders.events", "{\"n\":" + i + "}");
        }
        try (HikariDataSource pool = DataSources.create(
                        DatabaseConfig.of(fx.db.url(), fx.db.user(), fx.db.password(), "recorder-timeout-it"));
                Connection locker = DriverManager.getConnection(fx.db.url(), fx.db.user(), fx.db.password())) {
            // marks time out after 1 s (PostgreSQL cancels them: 57014)
            OutboxStore store = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(1)))
                    .getInstance(OutboxStore.class);
            List<OutboxRecord> rows = store.claim("relay-it", 6);
            assertEquals(6, rows.size());
            OutboxRecord stuck = rows.get(2);
            // another session holds the row: every mark that includes it waits past the timeout
            locker.setAutoCommit(false);
            try (PreparedStatement ps =
                    locker.prepareStatement("SELECT id FROM message_outbox WHERE id = ? FOR UPDATE")) {
                ps.setObject(1, stuck.id());
                ps.executeQuery().close();
            }
            RelayStats stats = new RelayStats();
            recorder = new OutcomeRecorder("relay-it", store, stats, 1_000, () -> {});
            rows.forEach(r -> recorder.add(new OutcomeRecorder.Published(r, 1_000)));
            try {
                recorder.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> fx.count("status = 'PUBLISHED'") == 5);
                await().atMost(WAIT).until(() -> stats.outcomesUnrecorded() == 1);
                assertTrue(
                        stats.markFailures(true) >= OutcomeRecorder.REFUSALS_BEFORE_ISOLATING,
                        "refused " + stats.markFailures(true) + " time(s)");
            } finally {
                recorder.stopAndFlush(Duration.ofSeconds(5));
                recorder = null;
                locker.rollback();
            }
            assertEquals(
                    "IN_PROGRESS",
                    fx.db.scalar("SELECT status FROM message_outbox WHERE id = ?", stuck.id()),
                    "the row keeps its lease for stale-lease recovery");
        }
    }
}
