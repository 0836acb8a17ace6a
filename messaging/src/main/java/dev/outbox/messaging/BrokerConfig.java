package dev.outbox.messaging;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.Settings;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/** How to reach the AMQP 0-9-1 broker. The URI's password is never printed. */
public record BrokerConfig(
        String uri, Duration heartbeat, Duration connectTimeout, Duration rpcTimeout, String connectionName) {

    public BrokerConfig {
        Objects.requireNonNull(uri, "uri");
        URI parsed;
        try {
            parsed = URI.create(uri);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("OUTBOX_AMQP_URI is not a URI (amqp://user:pass@host:5672/vhost)");
        }
        if (!"amqp".equals(parsed.getScheme()) && !"amqps".equals(parsed.getScheme())) {
            throw new ConfigurationException("OUTBOX_AMQP_URI must start with amqp:// or amqps://");
        }
    }

    public static BrokerConfig from(Settings settings, String uri, String connectionName) {
        return new BrokerConfig(
                uri,
                settings.duration(
                        "OUTBOX_AMQP_HEARTBEAT", Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofMinutes(10)),
                settings.duration(
                        "OUTBOX_AMQP_CONNECT_TIMEOUT",
                        Duration.ofSeconds(5),
                        Duration.ofMillis(100),
                        Duration.ofMinutes(1)),
                settings.duration(
                        "OUTBOX_AMQP_RPC_TIMEOUT",
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(1),
                        Duration.ofMinutes(10)),
                connectionName);
    }

    public static BrokerConfig of(String uri, String connectionName) {
        return new BrokerConfig(
                uri, Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(10), connectionName);
    }

    /** The URI with the password masked, for logs. */
    public String safeUri() {
        return Settings.maskUri(uri);
    }

    @Override
    public String toString() {
        return "BrokerConfig[" + safeUri() + ", heartbeat=" + heartbeat + "]";
    }
}
