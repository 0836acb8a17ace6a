package dev.outbox.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outbox.persistence.outbox.NewOutboxMessage;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * P: the plain batch relay most teams write first, as a baseline the project's relay must at
 * least match. Two threads, each in a loop of one transaction: select up to 500 pending rows
 * {@code FOR UPDATE SKIP LOCKED} in due order, publish them all on a confirm channel, wait for
 * the batch's confirms, mark them {@code PUBLISHED} by id, commit. No per-aggregate order, no
 * lease or fencing (the row locks are held across the broker round trip instead), no failure
 * classification: one update per row where the project's relay makes two (claim, then a fenced
 * mark), which is what makes it a hard baseline.
 */
final class PlainRelay {
    static final int THREADS = 2;
    static final int BATCH = 500;

    private PlainRelay() {
    }

    static Throughput run(BenchEnv env, List<NewOutboxMessage> events, boolean fresh) throws Exception {
        if (fresh) {
            env.fresh();
        } else {
            env.clean();
        }
        env.backlog(events, !fresh);
        long total = events.size();
        AtomicLong published = new AtomicLong();
        CpuMeter.Snapshot cpu = CpuMeter.take(java.util.Set.of());
        List<Connection> connections = new ArrayList<>();
        List<java.sql.Connection> databases = new ArrayList<>();
        double seconds;
        Map<String, Double> cpuPerRow;
        try {
            for (int t = 0; t < THREADS; t++) {
                connections.add(env.broker.connectionFactory().newConnection("bench-plain-" + t));
                databases.add(env.connect());
            }
            seconds = Parallel.run("bench-plain", THREADS, t -> {
                java.sql.Connection db = databases.get(t);
                try (PreparedStatement select = db.prepareStatement("SELECT id, exchange_name, routing_key,"
                                + " payload::text, message_type, aggregate_id, aggregate_version, correlation_id"
                                + " FROM message_outbox WHERE status = 'PENDING' ORDER BY created_at LIMIT " + BATCH
                                + " FOR UPDATE SKIP LOCKED");
                        PreparedStatement mark = db.prepareStatement("UPDATE message_outbox SET status = 'PUBLISHED',"
                                + " published_at = now() WHERE id = ANY(?)")) {
                    Channel ch = connections.get(t).createChannel();
                    ch.confirmSelect();
                    ch.addReturnListener(r -> {
                        throw new IllegalStateException("returned: " + r.getReplyText());
                    });
                    while (published.get() < total) {
                        List<UUID> ids = new ArrayList<>(BATCH);
                        try (ResultSet rs = select.executeQuery()) {
                            while (rs.next()) {
                                UUID id = (UUID) rs.getObject(1);
                                ids.add(id);
                                ch.basicPublish(rs.getString(2), rs.getString(3), true, properties(id, rs),
                                        rs.getString(4).getBytes(StandardCharsets.UTF_8));
                            }
                        }
                        if (ids.isEmpty()) {
                            db.rollback();
                            if (published.get() < total) {
                                Thread.sleep(1); // the other thread holds the rest
                            }
                            continue;
                        }
                        ch.waitForConfirmsOrDie(10_000);
                        mark.setArray(1, db.createArrayOf("uuid", ids.toArray()));
                        int done = mark.executeUpdate();
                        db.commit();
                        if (done != ids.size()) {
                            throw new IllegalStateException("marked " + done + " of " + ids.size());
                        }
                        published.addAndGet(done);
                    }
                }
            });
            // before the connections close: a server process's CPU time ends with it
            cpuPerRow = CpuMeter.perRow(cpu, CpuMeter.take(java.util.Set.of()), total);
        } finally {
            for (Connection c : connections) {
                c.close();
            }
            for (java.sql.Connection c : databases) {
                c.close();
            }
        }
        long rows = env.count("status = 'PUBLISHED'");
        if (rows != total) {
            throw new IllegalStateException(rows + " of " + total + " rows published");
        }
        return new Throughput(fresh ? "P fresh" : "P", "plain batch relay" + (fresh ? ", fresh database" : ""),
                THREADS + " threads, " + BATCH + " rows per transaction, wait for the batch's confirms", total,
                seconds, cpuPerRow);
    }

    private static AMQP.BasicProperties properties(UUID id, ResultSet rs) throws java.sql.SQLException {
        Object version = rs.getObject(7);
        return new AMQP.BasicProperties.Builder().deliveryMode(2).messageId(id.toString())
                .contentType("application/json").type(rs.getString(5)).correlationId(rs.getString(8))
                .headers(Map.of("aggregate_id", rs.getString(6), "aggregate_version",
                        version == null ? "" : version.toString()))
                .build();
    }
}
