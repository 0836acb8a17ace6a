package dev.outbox.testkit;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Chooses the database and broker the integration tests run against, once per JVM, and says
 * which on standard error, so a test log always shows what it ran on. In this order:
 * <ol>
 *   <li>environment variables: {@code OUTBOX_TEST_DB_URL} (+ {@code _USER}, {@code _PASSWORD}) and
 *       {@code OUTBOX_TEST_AMQP_URI}; this is what CI sets, against the machine's services;
 *   <li>Testcontainers, when a Docker engine answers: PostgreSQL and RabbitMQ containers;
 *   <li>embedded: a real PostgreSQL from packaged binaries and an AMQP 0-9-1 broker (Qpid
 *       Broker-J) in this JVM, so the suite runs on a machine with only a JDK and Maven.
 * </ol>
 * On the embedded broker, tests of RabbitMQ-only behaviour are skipped with their reason
 * ({@link RequiresRabbitMq}).
 */
final class TestInfrastructure {
    static final String DB_URL = "OUTBOX_TEST_DB_URL";
    static final String DB_USER = "OUTBOX_TEST_DB_USER";
    static final String DB_PASSWORD = "OUTBOX_TEST_DB_PASSWORD";
    static final String AMQP_URI = "OUTBOX_TEST_AMQP_URI";
    /** Set to "embedded" to skip the Docker probe (it takes a few seconds when no engine answers). */
    static final String MODE = "OUTBOX_TEST_INFRA";

    private static Boolean docker;

    private TestInfrastructure() {}

    static TestDatabase database() {
        String url = System.getenv(DB_URL);
        TestDatabase db;
        if (url != null && !url.isBlank()) {
            db = TestDatabase.create(url, System.getenv(DB_USER), System.getenv(DB_PASSWORD), "environment " + DB_URL);
        } else if (dockerAvailable()) {
            db = ContainerInfrastructure.database();
        } else {
            db = EmbeddedInfrastructure.database();
        }
        announce("database", db.source() + " -> " + db.url());
        return db;
    }

    static BrokerEndpoint broker() {
        String uri = System.getenv(AMQP_URI);
        BrokerEndpoint broker;
        if (uri != null && !uri.isBlank()) {
            broker = new BrokerEndpoint(uri, "environment " + AMQP_URI, true, true);
        } else if (dockerAvailable()) {
            broker = ContainerInfrastructure.broker();
        } else {
            broker = EmbeddedInfrastructure.broker();
        }
        announce("broker", broker.source() + " -> " + mask(broker.uri()));
        return broker;
    }

    static synchronized boolean dockerAvailable() {
        if (docker == null) {
            if ("embedded".equalsIgnoreCase(System.getenv(MODE)) || !dockerSocketLikely()) {
                docker = false;
            } else {
                docker = ContainerInfrastructure.dockerAvailable();
            }
        }
        return docker;
    }

    /** A quick look before asking Testcontainers, which logs a page of errors when there is no engine. */
    private static boolean dockerSocketLikely() {
        return System.getenv("DOCKER_HOST") != null
                || Files.exists(Path.of("/var/run/docker.sock"))
                || Files.exists(Path.of(System.getProperty("user.home"), ".docker", "run", "docker.sock"))
                || Files.exists(Path.of(System.getProperty("user.home"), ".testcontainers.properties"));
    }

    static void announce(String what, String where) {
        System.err.println("[testkit] " + what + ": " + where);
    }

    /** An AMQP URI with its password replaced, safe to print. */
    static String mask(String uri) {
        try {
            URI u = URI.create(uri);
            String info = u.getRawUserInfo();
            if (info == null || !info.contains(":")) {
                return uri;
            }
            return uri.replace(info, info.substring(0, info.indexOf(':')) + ":***");
        } catch (IllegalArgumentException e) {
            return "<unparseable AMQP URI>";
        }
    }
}
