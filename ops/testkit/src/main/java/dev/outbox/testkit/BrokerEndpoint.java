package dev.outbox.testkit;

/**
 * Where the test broker is and what it is, without the AMQP client: modules whose tests must not
 * see amqp-client on their classpath (the API never publishes) use this instead of
 * {@link TestBroker}. Chosen once per JVM, see {@link TestInfrastructure}.
 *
 * @param uri the AMQP URI, credentials included
 * @param source where it came from, for the test log
 * @param rabbitMq true for a real RabbitMQ, false for the embedded Qpid broker
 * @param localRabbitmqctl true when rabbitmqctl on this host administers it
 */
public record BrokerEndpoint(String uri, String source, boolean rabbitMq, boolean localRabbitmqctl) {
    private static BrokerEndpoint instance;

    public static synchronized BrokerEndpoint get() {
        if (instance == null) {
            instance = TestInfrastructure.broker();
        }
        return instance;
    }
}
