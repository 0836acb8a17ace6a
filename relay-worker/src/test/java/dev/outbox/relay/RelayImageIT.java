package dev.outbox.relay;

import dev.outbox.testkit.TestBroker;
import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.image.ContainerImageContract;
import dev.outbox.testkit.image.ImageSpec;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The relay's image, {@code outbox-relay} (ops/deploy/README.md, "Images"): ready once the database and the broker answer. */
class RelayImageIT extends ContainerImageContract {
    @Override
    protected ImageSpec spec() {
        return new ImageSpec(
                Path.of("target/jib-image.tar"),
                "outbox-relay",
                "dev.outbox.relay.RelayMain",
                List.of(),
                8081,
                "OUTBOX_RELAY_HTTP_PORT",
                true,
                () -> {
                    Map<String, String> env = new HashMap<>(TestDatabase.get().env());
                    env.putAll(TestBroker.get().env());
                    return env;
                });
    }
}
