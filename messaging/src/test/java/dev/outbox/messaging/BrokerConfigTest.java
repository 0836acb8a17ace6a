package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.rabbitmq.client.Address;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerConfigTest {

    @Test
    void oneHostIsOneAddressWithTheDefaultPortWhenItNamesNone() {
        assertEquals(
                List.of(new Address("broker", 5672)),
                BrokerConfig.of("amqp://u:p@broker/v", "t").addresses());
        assertEquals(
                List.of(new Address("broker", 5671)),
                BrokerConfig.of("amqps://u:p@broker/v", "t").addresses());
    }

    @Test
    void severalHostsAreTheNodesOfOneClusterWithTheSameCredentialsAndVhost() {
        BrokerConfig c =
                BrokerConfig.of("amqp://guest:s3cret@10.0.0.1:5701, 10.0.0.2:5702,node-c/%2F?heartbeat=5", "t");

        assertEquals(
                List.of(new Address("10.0.0.1", 5701), new Address("10.0.0.2", 5702), new Address("node-c", 5672)),
                c.addresses());
        assertEquals("amqp://guest:s3cret@10.0.0.1:5701/%2F?heartbeat=5", c.firstNodeUri());
        assertFalse(c.safeUri().contains("s3cret"), c.safeUri());
        assertTrue(c.safeUri().contains("10.0.0.2:5702"), c.safeUri());
    }

    @Test
    void aMalformedNodeListIsAConfigurationErrorAtStart() {
        for (String bad : List.of(
                "amqp://u:p@h1:5701,,h3:5703/v",
                "amqp://u:p@h1:5701,h2:port/v",
                "amqp://u:p@/v",
                "http://h1:5672/v",
                "not a uri")) {
            assertThrows(ConfigurationException.class, () -> BrokerConfig.of(bad, "t"), bad);
        }
    }

    @Test
    void theQueueTypeIsASettingDefaultingToClassic() {
        assertEquals(
                QueueType.CLASSIC,
                BrokerConfig.from(new Settings(Map.of()), "amqp://h/v", "t").queueType());
        assertEquals(
                QueueType.QUORUM,
                BrokerConfig.from(new Settings(Map.of("OUTBOX_AMQP_QUEUE_TYPE", "quorum")), "amqp://h/v", "t")
                        .queueType());
        ConfigurationException e = assertThrows(
                ConfigurationException.class,
                () -> BrokerConfig.from(new Settings(Map.of("OUTBOX_AMQP_QUEUE_TYPE", "stream")), "amqp://h/v", "t"));
        assertTrue(e.getMessage().contains("OUTBOX_AMQP_QUEUE_TYPE"), e.getMessage());
    }
}
