package dev.outbox.consumer.runtime;

import dev.outbox.config.ConfigurationException;
import dev.outbox.consumer.ConsumerRegistration;
import dev.outbox.consumer.OutboxConsumer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * The consumers on the classpath: every {@link OutboxConsumer} named in a jar's
 * {@code META-INF/services/dev.outbox.consumer.OutboxConsumer}, in name order. Adding a consumer
 * to a process is adding its jar; nothing here or in the launcher names one.
 */
public final class Consumers {
    private Consumers() {}

    /**
     * Every registration found, in name order.
     *
     * @throws ConfigurationException when a provider cannot be loaded, or two share a name or a
     *     queue (two processes would then write the same dedupe records)
     */
    public static List<ConsumerRegistration> all() {
        return all(Thread.currentThread().getContextClassLoader());
    }

    static List<ConsumerRegistration> all(ClassLoader loader) {
        List<ConsumerRegistration> found = new ArrayList<>();
        try {
            for (OutboxConsumer consumer : ServiceLoader.load(OutboxConsumer.class, loader)) {
                found.add(consumer.registration());
            }
        } catch (ServiceConfigurationError e) {
            throw new ConfigurationException(
                    "a consumer named in META-INF/services cannot be loaded: " + e.getMessage());
        }
        Map<String, ConsumerRegistration> byName = new HashMap<>();
        Map<String, ConsumerRegistration> byQueue = new HashMap<>();
        for (ConsumerRegistration r : found) {
            ConsumerRegistration sameName = byName.putIfAbsent(r.name(), r);
            if (sameName != null) {
                throw new ConfigurationException("two consumers are named " + r.name() + ": "
                        + sameName.handler().getName() + " and " + r.handler().getName());
            }
            ConsumerRegistration sameQueue = byQueue.putIfAbsent(r.queue(), r);
            if (sameQueue != null) {
                throw new ConfigurationException("consumers " + sameQueue.name() + " and " + r.name() + " both consume "
                        + r.queue() + ": each consumer needs a queue of its own");
            }
        }
        found.sort(Comparator.comparing(ConsumerRegistration::name));
        return List.copyOf(found);
    }

    /**
     * The consumer of that name.
     *
     * @throws ConfigurationException when none has it; the message lists those there are
     */
    public static ConsumerRegistration named(String name) {
        List<ConsumerRegistration> all = all();
        return all.stream()
                .filter(r -> r.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new ConfigurationException("no consumer named '" + name + "' on the classpath"
                        + (all.isEmpty()
                                ? " (no jar names one in META-INF/services/" + OutboxConsumer.class.getName() + ")"
                                : "; there are: "
                                        + String.join(
                                                ", ",
                                                all.stream()
                                                        .map(ConsumerRegistration::name)
                                                        .toList()))));
    }
}
