package dev.outbox.consumer.runtime;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.ProcessMain;
import dev.outbox.config.Settings;

/**
 * A consumer process: {@code ConsumerMain <name>} runs the consumer of that name found on the
 * classpath ({@link Consumers}); with no argument, the only one there is. Exits 0 on SIGTERM after
 * closing its channels, 2 if it cannot start (no such consumer, bad settings, no database).
 */
public final class ConsumerMain {
    private ConsumerMain() {}

    public static void main(String[] args) {
        ProcessMain.run(
                "consumer",
                () -> ConsumerApp.start(Settings.fromEnvironment(), Consumers.named(nameFrom(args))),
                app -> app.registration().name() + " consumer");
    }

    private static String nameFrom(String[] args) {
        if (args.length > 1) {
            throw new ConfigurationException("usage: ConsumerMain [consumer name]");
        }
        if (args.length == 1) {
            return args[0];
        }
        var all = Consumers.all();
        if (all.size() != 1) {
            throw new ConfigurationException(
                    "ConsumerMain needs a consumer name: the classpath has " + all.size() + " consumers");
        }
        return all.get(0).name();
    }
}
