package dev.outbox.deploy;

import dev.outbox.api.ApiApp;
import dev.outbox.api.ApiConfig;
import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import dev.outbox.config.StopBound;
import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.consumer.runtime.ConsumerApp;
import dev.outbox.consumer.runtime.Consumers;
import dev.outbox.relay.RelayApp;
import dev.outbox.relay.RelayConfig;

/** The processes the images run, each asked through its own code what it needs and does. */
enum OutboxProcess {
    API("outbox-api", null),
    RELAY("outbox-relay", null),
    LEDGER("outbox-ledger", "ledger"),
    SHIPMENTS("outbox-shipments", "shipments");

    /** The image's name, and the pool's name in {@code pg_stat_activity} ({@code application_name}). */
    final String image;

    private final String consumer;

    OutboxProcess(String image, String consumer) {
        this.image = image;
        this.consumer = consumer;
    }

    /** The process an image runs: {@code registry.example.com/outbox/outbox-relay:1.0.0} runs the relay. */
    static OutboxProcess ofImage(String image) {
        String repository = image.substring(image.lastIndexOf('/') + 1);
        String name = repository.contains(":") ? repository.substring(0, repository.indexOf(':')) : repository;
        for (OutboxProcess p : values()) {
            if (p.image.equals(name)) {
                return p;
            }
        }
        throw new AssertionError("no process of this service runs in image " + image);
    }

    boolean isConsumer() {
        return consumer != null;
    }

    ConsumerRegistration registration() {
        return Consumers.named(consumer);
    }

    /** What the process itself says its stop may take at most. */
    StopBound stopBound(Settings s) {
        return switch (this) {
            case API -> ApiApp.stopBound(s);
            case RELAY -> RelayApp.stopBound(s);
            case LEDGER, SHIPMENTS -> ConsumerApp.stopBound(s, registration());
        };
    }

    /** The port of its {@code /health} and {@code /metrics}. */
    int httpPort(Settings s) {
        return switch (this) {
            case API -> ApiConfig.from(s).port();
            case RELAY -> s.get(RelayConfig.HTTP_PORT);
            case LEDGER, SHIPMENTS -> {
                ConsumerRegistration r = registration();
                Setting<Integer> port = Declarations.named("OUTBOX_" + r.settingsPrefix() + "_HTTP_PORT");
                yield s.get(port, r.defaultHttpPort());
            }
        };
    }

    /** The most PostgreSQL connections it holds at once. */
    Connections connections(Settings s) {
        return Connections.of(this, s);
    }
}
