package dev.outbox.testkit;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.rabbitmq.RabbitMQContainer;

/**
 * Test infrastructure in Docker containers, when an engine answers. Kept in its own class so
 * that Testcontainers is not even loaded when the environment or the embedded servers are used.
 * The containers live as long as the test JVM (Testcontainers' reaper removes them).
 */
final class ContainerInfrastructure {
    private ContainerInfrastructure() {}

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    @SuppressWarnings("resource") // lives for the JVM
    static TestDatabase database() {
        PostgreSQLContainer pg = new PostgreSQLContainer("postgres:16-alpine");
        pg.start();
        return TestDatabase.create(
                pg.getJdbcUrl(), pg.getUsername(), pg.getPassword(), "Testcontainers " + pg.getDockerImageName());
    }

    @SuppressWarnings("resource") // lives for the JVM
    static BrokerEndpoint broker() {
        RabbitMQContainer rabbit = new RabbitMQContainer("rabbitmq:3.13-management-alpine");
        rabbit.start();
        String uri = "amqp://" + rabbit.getAdminUsername() + ":" + rabbit.getAdminPassword() + "@" + rabbit.getHost()
                + ":" + rabbit.getAmqpPort() + "/%2F";
        // rabbitmqctl runs on the host in the 403 test: not available against a container
        return new BrokerEndpoint(uri, "Testcontainers " + rabbit.getDockerImageName(), true, false);
    }
}
