package dev.outbox.chaos;

import dev.outbox.messaging.Topology;
import dev.outbox.sample.ledger.LedgerConsumer;
import dev.outbox.testkit.rows.PublicationAudit;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The product's promises, checked from outside once the processes have stopped: from the tables
 * (orders, outbox, dedupe records, the ledger and its journal), from what the clients were told,
 * and from the broker's queues. Each check counts its violations and keeps a few examples.
 */
final class Invariants {
    /** One invariant: how many violations, and what they were. */
    record Check(int number, String invariant, long violations, List<String> details) {}

    private final ChaosEnv env;
    private final Workload load;
    private final Observer observer;
    private final List<Faults.Window> databaseOutages;
    private final long deadLettered;
    private final GeneratedLoad generated;

    Invariants(ChaosEnv env, Workload load, Observer observer, List<Faults.Window> databaseOutages, long deadLettered) {
        this(env, load, observer, databaseOutages, deadLettered, null);
    }

    Invariants(
            ChaosEnv env,
            Workload load,
            Observer observer,
            List<Faults.Window> databaseOutages,
            long deadLettered,
            GeneratedLoad generated) {
        this.env = env;
        this.load = load;
        this.observer = observer;
        this.databaseOutages = databaseOutages;
        this.deadLettered = deadLettered;
        this.generated = generated;
    }

    List<Check> check() throws SQLException {
        List<Check> checks = new ArrayList<>(List.of(
                committedAndDelivered(),
                bookedOnce(),
                appliedInOrder(),
                idempotentRetries(),
                nothingStuck(),
                noServerErrors()));
        if (generated != null && generated.total() > 0) {
            checks.add(generatedDeliveredOrParked());
        }
        return List.copyOf(checks);
    }

    /** What invariant 7 found about the generated rows, for the report; null before {@link #check()}. */
    PublicationAudit.Verdict generatedVerdict;

    /**
     * 7: every generated row is delivered with its id (the observer queue saw it) or parked with a
     * code, or is still waiting for a reason the row itself gives (not due, held behind an earlier
     * version of its aggregate); none is PUBLISHED without a delivery, none left leased or due.
     */
    private Check generatedDeliveredOrParked() throws SQLException {
        List<String> d = new ArrayList<>();
        // the product's rows are the plain ones here, and invariant 1 holds them to more than this
        generatedVerdict = PublicationAudit.audit(
                env.dataSource(), observer.copies.keySet(), Duration.ofDays(1), GeneratedLoad.FILTER);
        generatedVerdict.violations().stream().limit(10).forEach(v -> d.add("  " + v));
        if (generated.failure() != null) {
            d.add("the writer of the generated rows stopped early: " + generated.failure());
        }
        return new Check(
                7,
                "every generated row (any SQL client's) delivered with its id or parked with a code;"
                        + " none PUBLISHED but undelivered",
                generatedVerdict.violations().size() + (generated.failure() != null ? 1 : 0),
                d);
    }

    /** 1: every 201 order exists, every event of every committed order reached the ledger queue. */
    private Check committedAndDelivered() throws SQLException {
        List<String> d = new ArrayList<>();
        List<UUID> placed =
                load.placed.values().stream().map(Workload.Placed::orderId).toList();
        long missing = count(
                "SELECT count(*) FROM unnest(?::uuid[]) AS w(id)"
                        + " WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.id = w.id)",
                placed);
        note(d, missing, "orders answered 201 but not in the database");
        long capture = count(
                "SELECT count(*) FROM unnest(?::uuid[]) AS w(id) LEFT JOIN orders o ON o.id = w.id"
                        + " WHERE o.payment_id IS NULL",
                List.copyOf(load.captured.keySet()));
        note(d, capture, "captures answered 200 but the order has no payment");
        long cancel = count(
                "SELECT count(*) FROM unnest(?::uuid[]) AS w(id) LEFT JOIN orders o ON o.id = w.id"
                        + " WHERE o.status IS DISTINCT FROM 'CANCELLED'",
                List.copyOf(load.cancelled.keySet()));
        note(d, cancel, "cancels answered 200 but the order is not cancelled");
        long events = env.count(
                "SELECT count(*) FROM orders o LEFT JOIN (SELECT aggregate_id, count(*) n,"
                        + " max(aggregate_version) v FROM chaos_product_outbox WHERE aggregate_type = 'order' GROUP BY aggregate_id) m"
                        + " ON m.aggregate_id = o.id::text WHERE m.n IS DISTINCT FROM o.version OR m.v IS DISTINCT FROM o.version");
        note(d, events, "orders whose outbox rows are not exactly versions 1..version");
        long notDelivered = env.count("SELECT count(*) FROM chaos_product_outbox m WHERE NOT EXISTS (SELECT 1"
                + " FROM processed_messages p WHERE p.consumer_name = 'ledger' AND p.message_id = m.id::text)");
        note(d, notDelivered, "events with no dedupe record of the ledger consumer (never taken from its queue)");
        long notApplied = env.count("SELECT count(*) FROM chaos_product_outbox m WHERE NOT EXISTS (SELECT 1"
                + " FROM ledger_journal j WHERE j.message_id = m.id::text)");
        note(d, notApplied, "events the ledger consumer never applied (not in ledger_journal)");
        examples(
                d,
                "SELECT m.id, m.aggregate_id, m.aggregate_version, m.message_type, m.status FROM chaos_product_outbox m"
                        + " WHERE NOT EXISTS (SELECT 1 FROM ledger_journal j WHERE j.message_id = m.id::text) LIMIT 5");
        return new Check(
                1,
                "every 201 order exists; every event of every committed order reached the ledger queue"
                        + " (dedupe record) and was applied (journal)",
                missing + capture + cancel + events + notDelivered + notApplied,
                d);
    }

    /** 2: one capture and one refund entry per payment, of the order's total, and nothing else. */
    private Check bookedOnce() {
        List<String> d = new ArrayList<>();
        String wrong = "FROM orders o LEFT JOIN LATERAL (SELECT"
                + " count(*) FILTER (WHERE entry_type = 'CAPTURE') c,"
                + " count(*) FILTER (WHERE entry_type = 'CAPTURE' AND amount = o.total AND payment_id = o.payment_id) c_ok,"
                + " count(*) FILTER (WHERE entry_type = 'REFUND') r,"
                + " count(*) FILTER (WHERE entry_type = 'REFUND' AND amount = o.total AND payment_id = o.payment_id) r_ok"
                + " FROM ledger_entries l WHERE l.order_id = o.id) e ON true"
                + " CROSS JOIN LATERAL (SELECT CASE WHEN o.payment_id IS NULL THEN 0 ELSE 1 END AS c,"
                + " CASE WHEN o.payment_id IS NOT NULL AND o.status = 'CANCELLED' THEN 1 ELSE 0 END AS r) x"
                + " WHERE e.c <> x.c OR e.c_ok <> x.c OR e.r <> x.r OR e.r_ok <> x.r";
        long orders = env.count("SELECT count(*) " + wrong);
        note(d, orders, "orders whose captures/refunds are not booked exactly once for their total");
        examples(d, "SELECT o.id, o.status, o.payment_id, e.c AS captures, e.r AS refunds " + wrong + " LIMIT 5");
        long orphans = env.count("SELECT count(*) FROM ledger_entries l WHERE NOT EXISTS (SELECT 1 FROM orders o"
                + " WHERE o.id = l.order_id)");
        note(d, orphans, "ledger entries for no order");
        return new Check(2, "each capture booked exactly once and each refund exactly once", orders + orphans, d);
    }

    /** 3: the journal of each aggregate reads 1, 2, 3, ... in the order applied: none twice, none skipped. */
    private Check appliedInOrder() {
        List<String> d = new ArrayList<>();
        String bad = "FROM (SELECT consumer_name, aggregate_type, aggregate_id,"
                + " string_agg(aggregate_version::text, ',' ORDER BY seq) versions,"
                + " bool_and(aggregate_version = rn) ok FROM (SELECT consumer_name, aggregate_type, aggregate_id,"
                + " aggregate_version, seq, row_number() OVER (PARTITION BY consumer_name, aggregate_type, aggregate_id"
                + " ORDER BY seq) rn FROM ledger_journal WHERE aggregate_version IS NOT NULL) x"
                + " GROUP BY consumer_name, aggregate_type, aggregate_id) y WHERE NOT ok";
        long n = env.count("SELECT count(*) " + bad);
        note(d, n, "aggregates whose versions were applied out of order, twice or with a gap");
        examples(d, "SELECT consumer_name, aggregate_id, versions " + bad + " LIMIT 5");
        long both = env.count("SELECT count(*) FROM (SELECT aggregate_id FROM ledger_journal GROUP BY aggregate_id"
                + " HAVING count(DISTINCT instance_id) > 1) s");
        d.add("(aggregates applied by more than one consumer process: " + both + ")");
        return new Check(3, "each consumer applied each aggregate's versions in order, none skipped", n, d);
    }

    /** 4: one order per idempotency key, the one the client was told about; retries never refused. */
    private Check idempotentRetries() throws SQLException {
        List<String> d = new ArrayList<>();
        long twice = env.count("SELECT count(*) FROM (SELECT customer_id FROM orders GROUP BY customer_id"
                + " HAVING count(*) > 1) s");
        note(d, twice, "idempotency keys with more than one order");
        examples(d, "SELECT customer_id, count(*) FROM orders GROUP BY customer_id HAVING count(*) > 1 LIMIT 5");
        List<String> customers = new ArrayList<>();
        List<UUID> ids = new ArrayList<>();
        for (Workload.Placed p : load.placed.values()) {
            customers.add("chaos-" + p.key());
            ids.add(p.orderId());
        }
        long other;
        try (Connection c = env.connection();
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM"
                        + " unnest(?::text[], ?::uuid[]) AS w(customer, id) JOIN orders o ON o.customer_id = w.customer"
                        + " WHERE o.id <> w.id")) {
            ps.setArray(1, c.createArrayOf("text", customers.toArray()));
            ps.setArray(2, c.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                other = rs.getLong(1);
            }
        }
        note(d, other, "orders under a key whose 201 named another order");
        long refused =
                load.unexpected.stream().filter(Workload.Unexpected::retried).count();
        note(d, refused, "retried writes answered with an error (the retry was not idempotent)");
        load.unexpected.stream()
                .filter(Workload.Unexpected::retried)
                .limit(5)
                .forEach(u -> d.add("  " + u.op() + " " + u.orderId() + ": " + u.status() + " " + u.body()));
        return new Check(
                4,
                "an idempotent retry never created a second order (nor a second effect)",
                twice + other + refused,
                d);
    }

    /** 5: nothing left in flight or failed, nothing parked, held or dead-lettered by a transient fault. */
    private Check nothingStuck() {
        List<String> d = new ArrayList<>();
        long rows = env.count("SELECT count(*) FROM chaos_product_outbox WHERE status IN ('PENDING', 'IN_PROGRESS',"
                + " 'RETRYABLE_FAILED', 'PARKED')");
        note(d, rows, "outbox rows PENDING, IN_PROGRESS, RETRYABLE_FAILED or PARKED");
        examples(
                d,
                "SELECT status, last_error_code, count(*) FROM chaos_product_outbox WHERE status <> 'PUBLISHED'"
                        + " GROUP BY 1, 2");
        long held = env.count("SELECT count(*) FROM consumer_held_messages");
        note(d, held, "messages still held by a consumer waiting for a predecessor");
        long failed = env.count("SELECT count(*) FROM consumer_failures WHERE dead_lettered_at IS NOT NULL");
        note(d, failed, "messages the consumer dead-lettered");
        note(d, deadLettered, "messages in " + Topology.deadLetterQueueOf(LedgerConsumer.QUEUE));
        return new Check(
                5,
                "no row left IN_PROGRESS or RETRYABLE_FAILED; nothing parked by a transient fault",
                rows + held + failed + deadLettered,
                d);
    }

    /** 6: no 5xx but a 503 while the database was unreachable (its backends had just been terminated). */
    private Check noServerErrors() {
        List<String> d = new ArrayList<>();
        long other = 0;
        long outside = 0;
        long expected = 0;
        for (Workload.ServerError e : load.serverErrors) {
            if (e.status() != 503 || !"service_unavailable".equals(e.code())) {
                other++;
                if (other <= 5) {
                    d.add("  " + e.status() + " " + e.code() + " on " + e.op() + " at " + e.atMillis() / 1000.0 + " s");
                }
            } else if (databaseOutages.stream()
                    .noneMatch(w -> e.atMillis() >= w.fromMillis() && e.atMillis() <= w.toMillis())) {
                outside++;
                if (outside <= 5) {
                    d.add("  503 on " + e.op() + " at " + e.atMillis() / 1000.0 + " s, no database fault near it");
                }
            } else {
                expected++;
            }
        }
        note(d, other, "5xx answers other than 503 service_unavailable");
        note(d, outside, "503 answers while the database was reachable");
        d.add("(503 while API backends were being terminated, expected: " + expected + ")");
        return new Check(6, "no 5xx except 503 while the database was unreachable", other + outside, d);
    }

    private long count(String sql, List<UUID> ids) throws SQLException {
        try (Connection c = env.connection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            Array a = c.createArrayOf("uuid", ids.toArray());
            ps.setArray(1, a);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static void note(List<String> details, long n, String what) {
        if (n > 0) {
            details.add(n + " " + what);
        }
    }

    private void examples(List<String> details, String sql) {
        for (Map<String, Object> row : env.rows(sql)) {
            details.add("  " + row);
        }
    }
}
