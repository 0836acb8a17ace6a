package dev.outbox.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Both embedded servers really start, really speak their protocols, and keep data across restarts. */
class EmbeddedInfrastructureTest {

    @Test
    void postgresKeepsItsDataAcrossARestart(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("pg");
        try (EmbeddedDatabase db = EmbeddedDatabase.start(data, 0);
                var c = DriverManager.getConnection(db.jdbcUrl(), db.user(), null);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kept (v text)");
            s.execute("INSERT INTO kept VALUES ('survives')");
            try (ResultSet rs =
                    s.executeQuery("SELECT pg_try_advisory_lock(1), current_setting('server_version_num')")) {
                assertTrue(rs.next() && rs.getBoolean(1), "advisory locks work");
            }
        }
        try (EmbeddedDatabase db = EmbeddedDatabase.start(data, 0);
                var c = DriverManager.getConnection(db.jdbcUrl(), db.user(), null);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT v FROM kept")) {
            assertTrue(rs.next());
            assertEquals("survives", rs.getString(1));
        }
    }

    @Test
    void theBrokerSpeaksAmqpWithConfirmsReturnsAndKeepsDurableMessagesAcrossARestart(@TempDir Path dir)
            throws Exception {
        Path work = dir.resolve("broker");
        int port;
        try (EmbeddedBroker broker = EmbeddedBroker.start(work, 0)) {
            port = broker.port();
            ConnectionFactory f = new ConnectionFactory();
            f.setUri(broker.uri());
            try (Connection conn = f.newConnection();
                    Channel ch = conn.createChannel()) {
                ch.exchangeDeclare("x", "topic", true);
                ch.queueDeclare("q", true, false, false, null);
                ch.queueBind("q", "x", "k");
                ch.confirmSelect();
                ch.basicPublish(
                        "x",
                        "k",
                        true,
                        new AMQP.BasicProperties.Builder()
                                .deliveryMode(2)
                                .messageId("m1")
                                .build(),
                        "kept".getBytes(StandardCharsets.UTF_8));
                assertTrue(ch.waitForConfirms(5_000), "acked");
                java.util.concurrent.CountDownLatch returned = new java.util.concurrent.CountDownLatch(1);
                ch.addReturnListener(r -> returned.countDown());
                ch.basicPublish("x", "nobody", true, null, new byte[0]);
                // Qpid nacks it and then returns it (RabbitMQ returns it and then acks)
                assertTrue(!ch.waitForConfirms(5_000), "nacked");
                assertTrue(
                        returned.await(5, java.util.concurrent.TimeUnit.SECONDS),
                        "an unroutable mandatory message is returned");
            }
        }
        assertTrue(Files.exists(work.resolve("config.json")), "configuration persisted");
        try (EmbeddedBroker broker = EmbeddedBroker.start(work, port)) {
            ConnectionFactory f = new ConnectionFactory();
            f.setUri(broker.uri());
            try (Connection conn = f.newConnection();
                    Channel ch = conn.createChannel()) {
                GetResponse r = ch.basicGet("q", true);
                assertNotNull(r, "the durable message survived the restart");
                assertEquals("m1", r.getProps().getMessageId());
            }
        }
    }
}
