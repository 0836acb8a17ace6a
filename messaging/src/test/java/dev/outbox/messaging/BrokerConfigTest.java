package dev.outbox.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import com.rabbitmq.client.Address;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

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

    /** Every broker URI with several nodes that a guide (any README) shows, as a user would paste it. */
    @Test
    void everyClusterUriInTheGuidesParsesIntoItsNodes() throws Exception {
        StringBuilder guides = new StringBuilder();
        try (java.util.stream.Stream<java.nio.file.Path> files =
                java.nio.file.Files.walk(java.nio.file.Path.of(".."))) {
            for (java.nio.file.Path f : files.filter(
                            f -> f.getFileName().toString().equals("README.md")
                                    && !f.toString().contains("/target/")
                                    && !f.toString().contains("/.git/"))
                    .toList()) {
                guides.append(java.nio.file.Files.readString(f)).append('\n');
            }
        }
        String readme = guides.toString();
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("amqps?://[^\\s`|)'\"]+").matcher(readme);
        int seen = 0;
        while (m.find()) {
            String uri = m.group();
            if (!uri.contains(",")) {
                continue;
            }
            seen++;
            String hosts = uri.replaceFirst("^amqps?://([^@/]*@)?", "").replaceFirst("/.*$", "");
            BrokerConfig c = BrokerConfig.of(uri, "readme");
            assertEquals(hosts.split(",").length, c.addresses().size(), uri);
            assertTrue(c.firstNodeUri().startsWith(uri.substring(0, uri.indexOf("://") + 3)), uri);
            assertTrue(java.net.URI.create(c.firstNodeUri()).getHost() != null, "first node of " + uri);
        }
        assertTrue(seen >= 2, "the guides show cluster URIs (found " + seen + ")");
    }

    @Test
    void anyListOfNodesParsesIntoTheSameNodesInOrder() {
        qt().withExamples(300).forAll(nodes(), Generate.booleans()).checkAssert((nodes, credentials) -> {
            StringBuilder uri = new StringBuilder("amqp://").append(credentials ? "u%40x:p%3Aw@" : "");
            for (int i = 0; i < nodes.size(); i++) {
                uri.append(i == 0 ? "" : ",")
                        .append(nodes.get(i).getHost())
                        .append(":")
                        .append(nodes.get(i).getPort());
            }
            uri.append("/%2F");
            assertEquals(nodes, BrokerConfig.of(uri.toString(), "t").addresses(), uri.toString());
        });
    }

    /**
     * One to five nodes, each a host name (a letter, then letters, digits and hyphens, not ending in
     * one, 1 to 20 characters) or an IPv4 address, and a port; one value in ten an edge (a
     * one-letter name, an octet or port at or next to its range's ends).
     */
    Gen<List<Address>> nodes() {
        List<Character> letters =
                IntStream.rangeClosed('a', 'z').mapToObj(c -> (char) c).toList();
        List<Character> lettersAndDigits = Stream.concat(
                        letters.stream(), IntStream.rangeClosed('0', '9').mapToObj(c -> (char) c))
                .toList();
        List<Character> anyOfThem =
                Stream.concat(lettersAndDigits.stream(), Stream.of('-')).toList();
        Gen<String> name = integers()
                .between(1, 20)
                .flatMap(length -> Generate.pick(letters)
                        .zip(
                                lists().of(Generate.pick(anyOfThem)).ofSize(Math.max(0, length - 2)),
                                Generate.pick(lettersAndDigits),
                                (first, middle, last) -> first
                                        + middle.stream().map(String::valueOf).collect(Collectors.joining())
                                        + (length > 1 ? String.valueOf(last) : "")))
                .mix(Generate.pick(List.of("a", "z")), 10);
        Gen<Integer> octet = integers().between(0, 255).mix(Generate.pick(List.of(0, 1, 2, 254, 255)), 10);
        Gen<String> ipv4 =
                lists().of(octet).ofSize(4).map(o -> o.get(0) + "." + o.get(1) + "." + o.get(2) + "." + o.get(3));
        Gen<Integer> port = integers().between(1, 65_535).mix(Generate.pick(List.of(1, 2, 65_534, 65_535)), 10);
        return lists().of(Generate.oneOf(name, ipv4).zip(port, (host, p) -> new Address(host, p)))
                .ofSizeBetween(1, 5);
    }
}
