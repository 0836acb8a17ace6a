package dev.outbox.messaging;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How to reach the AMQP 0-9-1 broker, and how to declare its queues. The URI may list several
 * nodes of one cluster ({@code amqp://user:pass@h1:5701,h2:5702,h3:5703/vhost}: same credentials,
 * vhost and options); every connection attempt tries them in a new random order, so processes
 * spread over the nodes and a dead node is skipped. The URI's password is never printed.
 */
public record BrokerConfig(
        String uri,
        Duration heartbeat,
        Duration connectTimeout,
        Duration rpcTimeout,
        String connectionName,
        QueueType queueType,
        int maxMessageBytes) {

    /**
     * The largest body the relay sends: RabbitMQ 4's default {@code max_message_size} (3.10's is
     * 128 MiB). A larger body is parked as UNENCODABLE instead of making the broker close the
     * channel under every message in flight on it.
     */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

    private static final Pattern MULTI_HOST = Pattern.compile("^(amqps?://(?:[^@/]*@)?)([^/?#]*)(.*)$");

    public BrokerConfig {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(queueType, "queueType");
        // validated once here: a bad value is a configuration error at start, not at first connect
        addresses(uri);
    }

    /**
     * The nodes the URI names, in its order. Each comes with the URI's port when it names none
     * (5672, or 5671 for amqps).
     */
    public List<Address> addresses() {
        return addresses(uri);
    }

    /** The URI with only the first node in it: credentials, vhost and options for the factory. */
    String firstNodeUri() {
        Matcher m = MULTI_HOST.matcher(uri);
        if (!m.matches()) {
            throw new IllegalStateException("validated in the constructor");
        }
        return m.group(1) + m.group(2).split(",", -1)[0].trim() + m.group(3);
    }

    private static List<Address> addresses(String uri) {
        Matcher m = MULTI_HOST.matcher(uri);
        if (!m.matches()) {
            throw new ConfigurationException("OUTBOX_AMQP_URI must look like amqp://user:pass@host:5672/vhost"
                    + " (or amqps://), several hosts separated by commas");
        }
        int defaultPort = uri.startsWith("amqps:")
                ? ConnectionFactory.DEFAULT_AMQP_OVER_SSL_PORT
                : ConnectionFactory.DEFAULT_AMQP_PORT;
        List<Address> addresses = new ArrayList<>();
        for (String hostPort : m.group(2).split(",", -1)) {
            String hp = hostPort.trim();
            URI one;
            try {
                one = new URI("amqp://" + hp);
            } catch (URISyntaxException e) {
                throw new ConfigurationException("OUTBOX_AMQP_URI names a host that is not host[:port]: '" + hp + "'");
            }
            if (hp.isEmpty()
                    || one.getHost() == null
                    || one.getRawPath().length() > 0
                    || one.getRawUserInfo() != null) {
                throw new ConfigurationException("OUTBOX_AMQP_URI names a host that is not host[:port]: '" + hp + "'");
            }
            addresses.add(new Address(one.getHost(), one.getPort() == -1 ? defaultPort : one.getPort()));
        }
        return List.copyOf(addresses);
    }

    public static final Setting<Optional<String>> URI_SETTING = Setting.optional(
            "OUTBOX_AMQP_URI",
            "AMQP URI",
            "embedded broker (launcher only)",
            "`amqp://user:pass@host:5672/vhost`; the nodes of a cluster comma-separated,"
                    + " `amqp://user:pass@h1:5672,h2:5672,h3:5672/vhost` (same credentials and vhost), tried in a new"
                    + " random order on every connect");
    public static final Setting<String> QUEUE_TYPE = Setting.oneOf(
            "OUTBOX_AMQP_QUEUE_TYPE",
            "classic",
            List.of("classic", "quorum"),
            "the type of the consumer queues and their dead-letter queues (a queue file's own `x-queue-type` wins)");
    public static final Setting<Duration> HEARTBEAT = Setting.duration(
            "OUTBOX_AMQP_HEARTBEAT",
            Duration.ofSeconds(10),
            Duration.ofSeconds(1),
            Duration.ofMinutes(10),
            "AMQP heartbeat: a dead TCP peer is noticed in about twice this");
    public static final Setting<Duration> CONNECT_TIMEOUT = Setting.duration(
            "OUTBOX_AMQP_CONNECT_TIMEOUT",
            Duration.ofSeconds(5),
            Duration.ofMillis(100),
            Duration.ofMinutes(1),
            "TCP connect + handshake");
    public static final Setting<Duration> RPC_TIMEOUT = Setting.duration(
            "OUTBOX_AMQP_RPC_TIMEOUT",
            Duration.ofSeconds(10),
            Duration.ofSeconds(1),
            Duration.ofMinutes(10),
            "channel RPC timeout");
    // RabbitMQ refuses max_message_size above 512 MiB
    public static final Setting<Integer> MAX_MESSAGE_SIZE = Setting.integer(
            "OUTBOX_AMQP_MAX_MESSAGE_SIZE",
            DEFAULT_MAX_MESSAGE_BYTES,
            1_024,
            512 * 1024 * 1024,
            "the largest body the relay sends, in bytes (16 MiB by default): the broker's `max_message_size`"
                    + " (RabbitMQ 4's default; 3.10's is 128 MiB). A larger row is parked as `UNENCODABLE` without"
                    + " being sent");

    /** {@code OUTBOX_AMQP_URI}, empty when unset: zero-infra mode to the launchers. */
    public static Optional<String> uri(Settings settings) {
        return settings.get(URI_SETTING);
    }

    /** The broker for a process that needs one: an unset URI stops it, with {@code whenUnset} in the message. */
    public static BrokerConfig required(Settings settings, String connectionName, String whenUnset) {
        String uri = settings.get(URI_SETTING)
                .orElseThrow(() -> new ConfigurationException("OUTBOX_AMQP_URI is not set" + whenUnset));
        return from(settings, uri, connectionName);
    }

    public static BrokerConfig from(Settings settings, String uri, String connectionName) {
        return new BrokerConfig(
                uri,
                settings.get(HEARTBEAT),
                settings.get(CONNECT_TIMEOUT),
                settings.get(RPC_TIMEOUT),
                connectionName,
                QueueType.parse(settings.get(QUEUE_TYPE)),
                settings.get(MAX_MESSAGE_SIZE));
    }

    public static BrokerConfig of(String uri, String connectionName) {
        return new BrokerConfig(
                uri,
                Duration.ofSeconds(10),
                Duration.ofSeconds(5),
                Duration.ofSeconds(10),
                connectionName,
                QueueType.CLASSIC,
                DEFAULT_MAX_MESSAGE_BYTES);
    }

    public BrokerConfig withQueueType(QueueType type) {
        return new BrokerConfig(uri, heartbeat, connectTimeout, rpcTimeout, connectionName, type, maxMessageBytes);
    }

    /** The URI with the password masked, for logs. */
    public String safeUri() {
        return Settings.maskUri(uri);
    }

    @Override
    public String toString() {
        return "BrokerConfig[" + safeUri() + ", heartbeat=" + heartbeat + ", queues=" + queueType.argument() + "]";
    }
}
