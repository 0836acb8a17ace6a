package dev.outbox.consumer.runtime;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.rabbitmq.client.Connection;
import dev.outbox.config.ProcessSignals;
import dev.outbox.persistence.DataSources;
import dev.outbox.persistence.DatabaseConfig;
import dev.outbox.persistence.PersistenceModule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * A consumer whose effect is outside the database (it "sends an e-mail" by appending a line to a
 * file), run as its own process by {@code SideEffectCrashIT}. With {@code CRASH_BEFORE_SEND} it
 * dies with {@code Runtime.halt} right before the send: after the dedupe commit, before the call.
 */
public final class SideEffectConsumerMain {
    private SideEffectConsumerMain() {}

    public static void main(String[] args) throws Exception {
        ProcessSignals signals = ProcessSignals.install();
        Path outbox = Path.of(System.getenv("SENT_MAIL_FILE"));
        boolean crash = Boolean.parseBoolean(System.getenv("CRASH_BEFORE_SEND"));
        var pool = DataSources.create(DatabaseConfig.of(
                System.getenv("OUTBOX_DB_URL"),
                System.getenv("OUTBOX_DB_USER"),
                System.getenv("OUTBOX_DB_PASSWORD"),
                "side-effect-consumer"));
        Injector injector = Guice.createInjector(new PersistenceModule(pool, Duration.ofSeconds(30)));
        ConsumerSettings settings = new ConsumerSettings(
                "mailer",
                System.getenv("QUEUE"),
                System.getenv("QUEUE") + ".dlq",
                1,
                1,
                3,
                Duration.ofMillis(50),
                Duration.ofSeconds(5));
        ConsumerRunner runner = ConsumerRunner.atMostOnce(
                settings,
                injector.getInstance(SideEffectGuard.class),
                "send-confirmation-mail",
                message -> {
                    if (crash) {
                        System.out.println("crashing before the send of " + message.messageId());
                        System.out.flush();
                        Runtime.getRuntime().halt(137);
                    }
                    Files.writeString(
                            outbox,
                            "mail for " + message.messageId() + "\n",
                            StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.APPEND);
                },
                injector.getInstance(FailureCounter.class));
        var factory = new com.rabbitmq.client.ConnectionFactory();
        factory.setUri(System.getenv("OUTBOX_AMQP_URI"));
        try (Connection connection = factory.newConnection("side-effect-consumer")) {
            runner.start(connection);
            System.out.println("consuming");
            System.out.flush();
            signals.await();
            runner.close();
        }
        pool.close();
        System.exit(0);
    }
}
