package dev.outbox.consumer.runtime;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.outbox.testkit.JavaProcess;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 000's rule for effects outside the database, demonstrated with a real crash: the consumer
 * process dies after committing its dedupe record and before the external call. The redelivered
 * message is a duplicate, so the call is lost, not repeated; the PENDING side-effect row names
 * the message to repair.
 */
class SideEffectCrashIT {
    private static final String QUEUE = "outbox.test.mailer";
    private final TestDatabase db = TestDatabase.get();
    private final TestBroker broker = TestBroker.get();
    private Path sent;

    @BeforeEach
    void setUp() throws Exception {
        db.reset();
        sent = Files.createTempFile("sent-mail", ".txt");
        broker.deleteQueue(QUEUE);
        broker.deleteQueue(QUEUE + ".dlq");
        broker.withChannel(ch -> {
            ch.queueDeclare(QUEUE, true, false, false, null);
            ch.queueDeclare(QUEUE + ".dlq", true, false, false, null);
        });
    }

    @AfterEach
    void tearDown() throws Exception {
        broker.deleteQueue(QUEUE);
        broker.deleteQueue(QUEUE + ".dlq");
        Files.deleteIfExists(sent);
    }

    private Map<String, String> env(boolean crash) {
        Map<String, String> env = new HashMap<>(db.env());
        env.putAll(broker.env());
        env.put("QUEUE", QUEUE);
        env.put("SENT_MAIL_FILE", sent.toString());
        env.put("CRASH_BEFORE_SEND", String.valueOf(crash));
        return env;
    }

    /** An order.created as the relay sends it, under the message id {@code id}, straight to the queue. */
    private void publish(String id) {
        DeliveryMutations.Wire created =
                DeliveryMutations.placedAndCaptured(UUID.randomUUID()).get(0);
        broker.withChannel(ch -> ch.basicPublish(
                "", QUEUE, created.props().builder().messageId(id).build(), created.body()));
    }

    @Test
    void aCrashBetweenTheDedupeCommitAndTheCallLosesTheCallInsteadOfRepeatingIt() throws Exception {
        String first = UUID.randomUUID().toString();
        publish(first);
        try (JavaProcess doomed =
                JavaProcess.start("mailer-doomed", SideEffectConsumerMain.class.getName(), env(true))) {
            doomed.awaitOutput(Pattern.compile("crashing before the send of " + first), Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(10)).until(() -> !doomed.isAlive());
        }
        assertEquals(1, db.count("SELECT count(*) FROM processed_messages WHERE message_id = ?", first));
        assertEquals("PENDING", db.scalar("SELECT status FROM consumer_side_effects WHERE message_id = ?", first));

        String second = UUID.randomUUID().toString();
        publish(second);
        try (JavaProcess mailer = JavaProcess.start("mailer", SideEffectConsumerMain.class.getName(), env(false))) {
            // the unacked first message is redelivered: a duplicate, acked without a call
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Files.readAllLines(sent).size() == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> broker.messageCount(QUEUE) == 0);
            assertEquals(0, mailer.terminate(Duration.ofSeconds(20)));
        }
        List<String> mails = Files.readAllLines(sent);
        assertEquals(List.of("mail for " + second), mails, "the first mail was lost, not sent twice");
        assertFalse(mails.contains("mail for " + first));
        assertEquals("DONE", db.scalar("SELECT status FROM consumer_side_effects WHERE message_id = ?", second));
        assertEquals(
                List.of(first),
                db.rows("SELECT message_id FROM consumer_side_effects WHERE status = 'PENDING'").stream()
                        .map(r -> r.get("message_id"))
                        .toList(),
                "the message to repair by hand");
    }
}
