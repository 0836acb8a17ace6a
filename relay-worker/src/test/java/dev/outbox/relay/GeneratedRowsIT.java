package dev.outbox.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;

import dev.outbox.config.Settings;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.RecordingQueue;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.rows.GeneratedRows;
import dev.outbox.testkit.rows.PublicationAudit;
import dev.outbox.testkit.rows.RowWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Rows any SQL client may write, generated over every column's range and interleaved with plain
 * rows, under a relay with default settings, against the real PostgreSQL and RabbitMQ. The
 * invariant, checked on a queue bound with {@code #}: every {@code PUBLISHED} row was delivered
 * with its id as {@code messageId}; every other row is parked or retryable with a code, not due
 * yet, or held behind an unfinished earlier version of its aggregate; and the plain rows are not
 * held up beyond one stale-check interval. Two rows carry bodies at and one byte past the
 * broker's message size limit.
 *
 * <p>The build runs {@value #DEFAULT_ROWS} generated rows (plus as many plain ones); {@code
 * -Doutbox.generatedRows=20000} runs a longer one, and the chaos tool mixes such rows into its
 * soak. One batch per build, new each build: a failure prints QuickTheories' seed, which {@code
 * -DQT_SEED=<seed>} replays, and the batch's own ({@code GeneratedRows.sample(seed, rows)} draws
 * the same rows); the run's summary goes to {@code target/generated-rows.md}.
 */
class GeneratedRowsIT {
    static final int DEFAULT_ROWS = 1_500;
    private static final int ROWS = Integer.getInteger("outbox.generatedRows", DEFAULT_ROWS);
    /** The relay's default stale-check interval: the recovery bound for plain rows. */
    private static final Duration RECOVERY_INTERVAL = Duration.ofSeconds(15);
    /** The latest {@code next_attempt_at} the generator writes, after the insert. */
    private static final Duration GENERATED_FUTURE = Duration.ofSeconds(5);

    @Test
    void everyRowIsDeliveredOrParkedWithACodeAndPlainRowsKeepFlowing() {
        // one batch, not shrunk: a shrunk seed draws another batch, not a smaller one, and each would
        // run the relay again
        qt().withExamples(1)
                .withShrinkCycles(0)
                .forAll(GeneratedRows.batches(ROWS))
                .checkAssert(batch -> {
                    try {
                        relayAndAudit(batch.rows());
                    } catch (Exception e) {
                        throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
                    }
                });
    }

    private void relayAndAudit(List<GeneratedRows.Row> generated) throws Exception {
        TestDatabase db = TestDatabase.get();
        TestBroker broker = TestBroker.get();
        db.reset();
        broker.declareTopicExchange(Topology.ORDERS_EXCHANGE);
        Map<String, String> env = new HashMap<>();
        env.putAll(db.env());
        env.putAll(broker.env());
        env.put("OUTBOX_RELAY_HTTP_PORT", "0");
        // the generated rows' types have no contract: json-only makes each meet the broker (and its
        // limits) rather than park CONTRACT_UNKNOWN before the first check
        env.put("OUTBOX_RELAY_UNREGISTERED_TYPES", "json-only");
        try (RecordingQueue everything = broker.bindQueue(Topology.ORDERS_EXCHANGE, "#");
                RelayApp relay = RelayApp.start(new Settings(env));
                RowWriter writer = new RowWriter(db.dataSource())) {
            long started = System.nanoTime();
            // at the limit (published) and one byte past it (parked), among the first rows
            writer.insert(GeneratedRows.withBodyOf(BrokerConfig.DEFAULT_MAX_MESSAGE_BYTES));
            writer.insert(GeneratedRows.withBodyOf(BrokerConfig.DEFAULT_MAX_MESSAGE_BYTES + 1));
            int n = 0;
            for (GeneratedRows.Row row : generated) {
                writer.insert(GeneratedRows.ordinary(n++));
                writer.insert(row);
            }
            Instant inserted = Instant.now();

            Set<String> delivered = new HashSet<>();
            try {
                await().atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(250))
                        .until(() -> {
                            everything.drain().forEach(d -> delivered.add(d.messageId()));
                            return Instant.now().isAfter(inserted.plus(GENERATED_FUTURE))
                                    && PublicationAudit.settled(db.dataSource());
                        });
                // the last confirms' messages may still be on their way to the queue
                long published = db.count("SELECT count(*) FROM message_outbox WHERE status = 'PUBLISHED'");
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            everything.drain().forEach(d -> delivered.add(d.messageId()));
                            return delivered.size() >= published;
                        });
            } catch (ConditionTimeoutException stuck) {
                // the audit below names the rows the relay left behind
                everything.drain().forEach(d -> delivered.add(d.messageId()));
            }
            long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();

            PublicationAudit.Verdict verdict = PublicationAudit.audit(db.dataSource(), delivered, RECOVERY_INTERVAL);
            String report = "# Generated rows against the relay\n\n"
                    + (ROWS + 2) + " generated rows (2 of them at and past the broker's message size limit) and "
                    + ROWS + " plain rows, written by plain SQL while one relay with default settings ran; "
                    + "settled in " + seconds + " s.\n\nRefused by PostgreSQL (SQLSTATE: rows): "
                    + writer.refusedBySqlState() + "; inserted: " + writer.inserted() + "\n\nWhat PostgreSQL said: "
                    + writer.firstRefusal() + "\n\n"
                    + verdict.describe();
            System.out.println(report);
            Path out = Path.of("target", "generated-rows.md");
            Files.createDirectories(out.getParent());
            Files.writeString(out, report);
            assertTrue(verdict.holds(), report);
        } finally {
            broker.purgeIfExists(LedgerConsumer.QUEUE);
        }
    }
}
