package dev.outbox.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import dev.outbox.messaging.BrokerConfig;
import dev.outbox.messaging.publish.ConfirmPublisher;
import dev.outbox.messaging.publish.OutboundMessage;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * N: the naive relay, the simplest correct one (publishing through the project's
 * {@link ConfirmPublisher} with a window of one, so it waits for each confirm). One transaction per tick: select 100 pending rows
 * {@code FOR UPDATE SKIP LOCKED}, and for each row publish it, wait for its confirm, update it;
 * commit. Runs until the backlog is gone or {@code budget} has passed, and reports the rows it
 * finished in that time.
 */
final class NaiveRelay {
    private NaiveRelay() {}

    static Throughput run(BenchEnv env, java.util.List<dev.outbox.jdbc.NewOutboxMessage> events, Duration budget)
            throws Exception {
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
            // window 1: the naive relay waits for each confirm before it sends the next message
            Outcomes outcomes = new Outcomes();
            ConfirmPublisher<String> ch =
                    ConfirmPublisher.open(amqp, 1, BrokerConfig.DEFAULT_MAX_MESSAGE_BYTES, outcomes);
            while (System.nanoTime() < deadline) {
                int tick = 0;
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        UUID id = (UUID) rs.getObject(1);
                        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                                .deliveryMode(2)
                                .messageId(id.toString())
                                .contentType("application/json")
                                .type(rs.getString(5))
                                .headers(Map.of(
                                        "aggregate_id",
                                        rs.getString(6),
                                        "aggregate_version",
                                        rs.getObject(7) == null
                                                ? ""
                                                : rs.getObject(7).toString()))
                                .build();
                        if (!ch.acquireSlot(Duration.ofSeconds(10))) {
                            throw new IllegalStateException("no confirm within 10 s");
                        }
                        ch.publish(
                                new OutboundMessage(
                                        rs.getString(2),
                                        rs.getString(3),
                                        props,
                                        rs.getString(4).getBytes(StandardCharsets.UTF_8)),
                                id.toString());
                        if (!ch.awaitSettled(Duration.ofSeconds(10))) {
                            throw new IllegalStateException("no confirm within 10 s for " + id);
                        }
                        outcomes.requireAllConfirmed(done + tick + 1);
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
            throw new IllegalStateException(
                    "naive relay counted " + done + " but " + published + " rows are published");
        }
        return new Throughput(
                "N", "naive relay", "1 worker, 100 rows per transaction, wait per confirm", done, seconds, cpuPerRow);
    }
}
