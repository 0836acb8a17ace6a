package dev.outbox.testkit;

import dev.outbox.embedded.EmbeddedBroker;
import dev.outbox.embedded.EmbeddedDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Test infrastructure inside the test JVM: a real PostgreSQL (packaged binaries) and an AMQP
 * 0-9-1 broker (Qpid Broker-J), in a temporary directory removed when the JVM exits.
 */
final class EmbeddedInfrastructure {
    private static Path root;

    private EmbeddedInfrastructure() {}

    static TestDatabase database() {
        try {
            EmbeddedDatabase pg = EmbeddedDatabase.start(root().resolve("postgres"), 0);
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                try {
                                    pg.close();
                                } catch (IOException e) {
                                    System.err.println("[testkit] stopping the embedded PostgreSQL: " + e);
                                }
                            },
                            "testkit-postgres-stop"));
            return TestDatabase.create(pg.jdbcUrl(), pg.user(), null, "embedded PostgreSQL (zonky binaries)");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
        }
    }

    static BrokerEndpoint broker() {
        try {
            EmbeddedBroker broker = EmbeddedBroker.start(root().resolve("broker"), 0);
            Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "testkit-broker-stop"));
            return new BrokerEndpoint(broker.uri(), "embedded AMQP 0-9-1 broker (Qpid Broker-J)", false, false);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the embedded AMQP broker", e);
        }
    }

    private static synchronized Path root() throws IOException {
        if (root == null) {
            root = Files.createTempDirectory("outbox-test-infra");
            Path dir = root;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir), "testkit-cleanup"));
        }
        return root;
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("[testkit] cleaning " + dir + ": " + e);
        }
    }
}
