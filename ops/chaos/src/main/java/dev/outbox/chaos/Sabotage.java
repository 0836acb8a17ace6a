package dev.outbox.chaos;

import java.util.Set;

/**
 * Breaks the state on purpose before the invariants are checked ({@code --sabotage}), to show that
 * each check can fail: a soak whose checks cannot fail proves nothing.
 */
final class Sabotage {
    private Sabotage() {}

    static void apply(ChaosEnv env, Set<String> what, Workload load) {
        for (String s : what) {
            String done = switch (s) {
                // an order the API confirmed disappears: invariant 1
                case "order" -> {
                    Workload.Placed p = load.placed.values().iterator().next();
                    env.execute("DELETE FROM orders WHERE id = ?", p.orderId());
                    yield "deleted order " + p.orderId() + " (answered 201)";
                }
                // a payment loses its booking: invariant 2
                case "ledger" -> {
                    env.execute("DELETE FROM ledger_entries WHERE id = (SELECT id FROM ledger_entries"
                            + " WHERE entry_type = 'REFUND' LIMIT 1)");
                    yield "deleted one REFUND ledger entry";
                }
                // the consumer seems to have skipped version 2 of an aggregate: invariants 3 (and 1)
                case "journal" -> {
                    env.execute("DELETE FROM ledger_journal WHERE seq = (SELECT seq FROM ledger_journal"
                            + " WHERE aggregate_version = 2 LIMIT 1)");
                    yield "deleted the journal row of one version 2";
                }
                // a second order under a key that already has one: invariant 4
                case "duplicate" -> {
                    env.execute("INSERT INTO orders (id, customer_id, tenant_id, status, version, currency, total,"
                            + " created_at, updated_at) SELECT gen_random_uuid(), customer_id, tenant_id, 'PLACED', 1,"
                            + " currency, total, created_at, updated_at FROM orders WHERE status = 'PLACED' LIMIT 1");
                    yield "inserted a second order for one idempotency key";
                }
                // a row left failed: invariant 5
                case "outbox" -> {
                    env.execute(
                            "UPDATE message_outbox SET status = 'RETRYABLE_FAILED', last_error_code = 'CONNECTION_LOST'"
                                    + " WHERE id = (SELECT id FROM chaos_product_outbox WHERE status = 'PUBLISHED' LIMIT 1)");
                    yield "set one PUBLISHED row to RETRYABLE_FAILED";
                }
                // a generated row the relay parked is marked PUBLISHED, as finding 1 of issue 21 did
                // with rows the client could not encode: invariant 7 (needs --generated-rows)
                case "generated" -> {
                    env.execute("UPDATE message_outbox SET status = 'PUBLISHED', published_at = now()"
                            + " WHERE id = (SELECT id FROM message_outbox WHERE status = 'PARKED'"
                            + " AND id IN (SELECT id FROM chaos_generated) LIMIT 1)");
                    yield "set one PARKED generated row to PUBLISHED";
                }
                default -> throw new IllegalArgumentException("unknown sabotage " + s);
            };
            System.out.println("[chaos] SABOTAGE (--sabotage " + s + "): " + done);
        }
    }
}
