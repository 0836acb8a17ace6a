package dev.outbox.consumer.runtime;

import dev.outbox.config.ConfigurationException;
import dev.outbox.config.ProcessMain;
import dev.outbox.config.Settings;
import dev.outbox.consumer.ConsumerRegistration;
import java.util.List;

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
                () -> ConsumerApp.start(Settings.fromEnvironment(), chosen(args)),
                app -> app.registration().name() + " consumer");
    }

    /** The consumer the arguments name, or the only one on the classpath; one scan of it either way. */
    private static ConsumerRegistration chosen(String[] args) {
        if (args.length > 1) {
            throw new ConfigurationException("usage: ConsumerMain [consumer name]");
        }
        if (args.length == 1) {
            return Consumers.named(args[0]);
        }
        List<ConsumerRegistration> all = Consumers.all();
        if (all.size() != 1) {
            throw new ConfigurationException(
                    "ConsumerMain needs a consumer name: the classpath has " + all.size() + " consumers");
        }
        return all.get(0);
    }
}
