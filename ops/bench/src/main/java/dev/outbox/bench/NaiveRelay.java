package dev.outbox.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * N: the relay of seed 000 as written there. One transaction per tick: select 100 pending rows
 * {@code FOR UPDATE SKIP LOCKED}, and for each row publish it, wait for its confirm, update it;
 * commit. Runs until the backlog is gone or {@code budget} has passed, and reports the rows it
 * finished in that time.
 */
final class NaiveRelay {
    private NaiveRelay() {
    }

    static Throughput run(BenchEnv env, java.util.List<dev.outbox.persistence.outbox.NewOutboxMessage> events,
            Duration budget) throws Exception {
        env.clean();
        env.backlog(events);
        env.analyze();
        long done = 0;
        java.util.Map<String, Double> cpuPerRow;
        CpuMeter.Snapshot cpu = CpuMeter.take(java.util.Set.of());
        long start = System.nanoTime();
        long deadline = start + budget.toNanos();
        try (java.sql.Connection db = env.connect();
                Connection amqp = env.broker.connectionFactory().newConnection("bench-naive");
                PreparedStatement select = db.prepareStatement("SELECT id, exchange_name, routing_key, payload::text,"
                        + " message_type, aggregate_id, aggregate_version FROM message_outbox WHERE status = 'PENDING'"
                        + " ORDER BY next_attempt_at, created_at LIMIT 100 FOR UPDATE SKIP LOCKED");
                PreparedStatement mark = db.prepareStatement(
                        "UPDATE message_outbox SET status = 'PUBLISHED', published_at = now() WHERE id = ?")) {
            Channel ch = amqp.createChannel();
            ch.confirmSelect();
            while (System.nanoTime() < deadline) {
                int tick = 0;
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        UUID id = (UUID) rs.getObject(1);
                        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().deliveryMode(2)
                                .messageId(id.toString()).contentType("application/json").type(rs.getString(5))
                                .headers(Map.of("aggregate_id", rs.getString(6), "aggregate_version",
                                        rs.getObject(7) == null ? "" : rs.getObject(7).toString()))
                                .build();
                        ch.basicPublish(rs.getString(2), rs.getString(3), true, props,
                                rs.getString(4).getBytes(StandardCharsets.UTF_8));
                        ch.waitForConfirmsOrDie(10_000);
                        mark.setObject(1, id);
                        mark.executeUpdate();
                        tick++;
                    }
                }
                db.commit();
                done += tick;
                if (tick == 0) {
                    break;
                }
            }
            // before the connection closes: its server process's CPU time ends with it
            cpuPerRow = CpuMeter.perRow(cpu, CpuMeter.take(java.util.Set.of()), Math.max(1, done));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long published = env.count("status = 'PUBLISHED'");
        if (published != done) {
            throw new IllegalStateException("naive relay counted " + done + " but " + published + " rows are published");
        }
        return new Throughput("N", "naive relay (seed 000)", "1 worker, 100 rows per transaction, wait per confirm",
                done, seconds, cpuPerRow);
    }
}
