package dev.outbox.api;

import dev.outbox.testkit.TestDatabase;
import dev.outbox.testkit.image.ContainerImageContract;
import dev.outbox.testkit.image.ImageSpec;
import java.nio.file.Path;
import java.util.List;

/**
 * The API's image, {@code outbox-api} (ops/deploy/README.md, "Images"): no broker client in it, and ready with a
 * database alone, as the API never talks to the broker.
 */
class ApiImageIT extends ContainerImageContract {
    @Override
    protected ImageSpec spec() {
        return new ImageSpec(
                Path.of("target/jib-image.tar"),
                "outbox-api",
                "dev.outbox.api.ApiMain",
                List.of(),
                8080,
                "OUTBOX_HTTP_PORT",
                false,
                () -> TestDatabase.get().env());
    }
}
