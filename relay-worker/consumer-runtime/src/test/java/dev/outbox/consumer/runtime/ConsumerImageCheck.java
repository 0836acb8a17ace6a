package dev.outbox.consumer.runtime;

import static org.junit.jupiter.api.Assumptions.abort;

import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.image.ContainerImageContract;
import dev.outbox.testkit.image.ImageSpec;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The image of the consumer module it runs in, {@code outbox-<name>} (ops/deploy/README.md, "Images"). It is not
 * run here: {@code ops/consumers/pom.xml} runs it from this module's test jar in every consumer
 * module, naming the consumer in {@code outbox.consumer.name}, so a new consumer's image is checked
 * with nothing written for it. Its port and port setting come from the consumer's registration.
 */
public class ConsumerImageCheck extends ContainerImageContract {
    @Override
    protected ImageSpec spec() {
        String name = System.getProperty("outbox.consumer.name");
        if (name == null) {
            abort("outbox.consumer.name is not set: ops/consumers/pom.xml runs this in a consumer's module");
        }
        ConsumerRegistration consumer = Consumers.named(name);
        return new ImageSpec(
                Path.of(System.getProperty("outbox.image.tar", "target/jib-image.tar")),
                "outbox-" + name,
                "dev.outbox.consumer.runtime.ConsumerMain",
                List.of(name),
                consumer.defaultHttpPort(),
                "OUTBOX_" + consumer.settingsPrefix() + "_HTTP_PORT",
                true,
                () -> {
                    Map<String, String> env = new HashMap<>(TestDatabase.get().env());
                    env.putAll(TestBroker.get().env());
                    return env;
                });
    }
}
