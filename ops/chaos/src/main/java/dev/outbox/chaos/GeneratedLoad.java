package dev.outbox.chaos;

import dev.outbox.kernel.contract.MessageContract;
import dev.outbox.kernel.contract.MessageContracts;
import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.rows.GeneratedRows;
import dev.outbox.testkit.rows.PublicationAudit;
import dev.outbox.testkit.rows.RowWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code --generated-rows N}: outbox rows as any SQL client may write them ({@link GeneratedRows}:
 * every column over its whole range, the unencodable and the unroutable among them), written by
 * plain SQL at an even pace while the load and the faults run, so that they meet relays that are
 * being killed, paused, cut off and partitioned. Their ids go into {@code chaos_generated} first,
 * so that the product's invariants leave them out ({@code chaos_product_outbox}) and invariant 7
 * holds each one to the outbox's promise: delivered with its id, or parked with a code.
 *
 * <p>A generated row must not reach the ledger's queue: the ledger's handling of malformed
 * deliveries has its own fuzz test (LedgerContractFuzzIT), and here it would count against the
 * product's invariants. So a routing key the ledger's queue is bound to, or the name of one of the
 * run's queues (the default exchange routes by queue name), gets a {@code gen.} prefix; every
 * other value is written as generated.
 */
final class GeneratedLoad {
    /** Rows of the run that were generated, not written by the product. */
    static final String FILTER = "c.id IN (SELECT id FROM chaos_generated)";

    /** How far ahead a generated row's next attempt may lie ({@link GeneratedRows}: up to 4 s). */
    private static final Duration FUTURE = Duration.ofSeconds(5);

    private final ChaosEnv env;
    private final int total;
    private final long seed;
    private final Duration window;
    private final Set<String> reserved = new HashSet<>();
    private volatile boolean running;
    private Thread writer;
    private volatile long lastWriteNanos;
    final AtomicLong written = new AtomicLong();
    final AtomicLong renamed = new AtomicLong();
    private volatile Map<String, Long> refused = Map.of();
    private volatile Map<String, String> firstRefusal = Map.of();
    private volatile String failure;

    GeneratedLoad(ChaosEnv env, int total, long seed, Duration window) {
        this.env = env;
        this.total = total;
        this.seed = seed;
        this.window = window;
        for (MessageContract c : MessageContracts.onClasspath().all()) {
            reserved.add(c.routingKey());
        }
        reserved.add(LedgerConsumer.QUEUE);
        reserved.add(Topology.deadLetterQueueOf(LedgerConsumer.QUEUE));
        reserved.add(Observer.QUEUE);
    }

    void start() {
        if (total == 0) {
            return;
        }
        running = true;
        writer = new Thread(this::write, "chaos-generated-rows");
        writer.setDaemon(true);
        writer.start();
    }

    private void write() {
        long started = System.nanoTime();
        long every = Math.max(1, window.toNanos() / total);
        try (RowWriter rows = new RowWriter(env.dataSource());
                Connection c = env.connection();
                PreparedStatement mark = c.prepareStatement("INSERT INTO chaos_generated (id) VALUES (?)")) {
            AtomicLong n = new AtomicLong();
            // the seed draws the rows, as it draws the faults: a run can be replayed with the same rows.
            // Each row is drawn when it is due and written at once, so that a row generated to come due
            // a few seconds after its insert does
            GeneratedRows.draw(seed, generated -> {
                if (!running) {
                    return false;
                }
                GeneratedRows.Row row = keptFromTheLedger(generated);
                mark.setObject(1, row.id());
                mark.executeUpdate();
                writeOne(rows, row);
                lastWriteNanos = System.nanoTime();
                long next = n.incrementAndGet();
                if (next == total) {
                    return false;
                }
                long wait = started + next * every - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                return true;
            });
            refused = rows.refusedBySqlState();
            firstRefusal = rows.firstRefusal();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // SQLException or unchecked; the sink above throws nothing else
            failure = e.toString();
            System.out.println("[chaos] the generated rows' writer stopped: " + e);
        }
    }

    /** Writes a row; a connection the database faults took is retried, a refusal is counted. */
    private void writeOne(RowWriter rows, GeneratedRows.Row row) throws SQLException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                if (rows.insert(row).isEmpty()) {
                    written.incrementAndGet();
                }
                return;
            } catch (SQLException e) {
                // only a failed connection reaches here (RowWriter counts refusals); the soak's own
                // connections are not among the faults' targets, so this is rare and short
                if (attempt == 5) {
                    throw e;
                }
                Thread.sleep(200L * attempt);
            }
        }
    }

    private GeneratedRows.Row keptFromTheLedger(GeneratedRows.Row r) {
        if (r.routingKey() == null || !reserved.contains(r.routingKey())) {
            return r;
        }
        renamed.incrementAndGet();
        return r.withRoutingKey("gen." + r.routingKey());
    }

    /** Stops writing; the rows written are the run's. */
    void stop() throws InterruptedException {
        running = false;
        if (writer != null) {
            writer.join(30_000);
        }
    }

    /**
     * True once every written row has come due ({@link #FUTURE} after the last write): before that
     * a row may still become claimable, and the soak is not quiet.
     */
    boolean allDue() {
        return writer == null || System.nanoTime() - lastWriteNanos > FUTURE.toNanos();
    }

    /** The relays have nothing left of the generated rows: none leased, none claimable now. */
    boolean settled() throws SQLException {
        return total == 0 || PublicationAudit.settled(env.dataSource(), FILTER);
    }

    /** Rows PostgreSQL refused, by SQLSTATE. */
    Map<String, Long> refused() {
        return new TreeMap<>(refused);
    }

    Map<String, String> firstRefusal() {
        return new TreeMap<>(firstRefusal);
    }

    /** Why the writer stopped early, or null. */
    String failure() {
        return failure;
    }

    int total() {
        return total;
    }
}
