package dev.outbox.testkit.image;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What an image of ours must be, for {@link ContainerImageContract}.
 *
 * @param tar the tar {@code jib:buildTar} wrote
 * @param repository the agreed image name, {@code outbox-api}
 * @param mainClass the class the entrypoint runs
 * @param args the image's {@code Cmd}: the program arguments after the main class
 * @param port the exposed port, the process's default HTTP port
 * @param portVariable the setting that moves that port (the test runs it on a free one)
 * @param brokerClient whether the process talks to the broker, and so whether amqp-client is in it
 * @param services the environment that points the process at the test database (and broker)
 */
public record ImageSpec(
        Path tar,
        String repository,
        String mainClass,
        List<String> args,
        int port,
        String portVariable,
        boolean brokerClient,
        Supplier<Map<String, String>> services) {

    public ImageSpec {
        args = List.copyOf(args);
    }
}
