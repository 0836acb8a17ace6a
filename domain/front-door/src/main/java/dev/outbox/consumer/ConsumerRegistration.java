package dev.outbox.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What makes a consumer, beside its handler class: its name (the dedupe records' consumer name),
 * its queue (declared by the {@code topology/<queue>.queue.json} it ships), the prefix of its
 * settings ({@code OUTBOX_<PREFIX>_PREFETCH}, {@code _CHANNELS}, {@code _HTTP_PORT}, ...), the
 * MyBatis mappers its handler needs, its default HTTP port, its own Flyway migrations (applied by
 * the runtime before it consumes, with a history table of its own,
 * {@code flyway_<name>_history}), the tables of its own that retention keeps short, and whether
 * it applies each aggregate's messages in version order ({@link Ordering}). The
 * runtime's {@code ConsumerApp} is the process around it, the same for every consumer.
 *
 * <pre>{@code
 * ConsumerRegistration.builder("shipments", "shipments.order-events", ShipmentsHandler.class)
 *         .mappers(ShipmentMapper.class)
 *         .migrations("classpath:db/shipments")
 *         .httpPort(8083)
 *         .asDelivered() // its queue binds order.shipped only
 *         .build();
 * }</pre>
 */
public record ConsumerRegistration(
        String name,
        String queue,
        String settingsPrefix,
        Class<? extends MessageHandler> handler,
        List<Class<?>> mappers,
        int defaultHttpPort,
        Optional<String> migrations,
        List<RetainedTable<?>> retention,
        Ordering ordering) {

    /** How the runtime applies messages that carry an aggregate and its version. */
    public enum Ordering {
        /**
         * Each aggregate's messages in version order: one that arrives early is held in the
         * database until its predecessor is applied, one older than the last applied is stale.
         * For a consumer whose queue gets every versioned message of the aggregate.
         */
        AGGREGATE_ORDER,
        /**
         * As delivered, each once. For a consumer whose queue binds only some of an aggregate's
         * message types: under {@link #AGGREGATE_ORDER} it would hold each one for a predecessor
         * that never comes to it.
         */
        AS_DELIVERED
    }

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]{0,39}");
    private static final Pattern PREFIX = Pattern.compile("[A-Z][A-Z0-9_]{0,39}");

    public ConsumerRegistration {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(settingsPrefix, "settingsPrefix");
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(migrations, "migrations");
        Objects.requireNonNull(ordering, "ordering");
        if (!NAME.matcher(name).matches()) {
            // it names a Flyway history table and tags metrics: lower case, digits, underscores
            throw new IllegalArgumentException("consumer name '" + name + "' must match " + NAME.pattern()
                    + " (it names flyway_" + name + "_history)");
        }
        if (!PREFIX.matcher(settingsPrefix).matches()) {
            throw new IllegalArgumentException(
                    "settings prefix '" + settingsPrefix + "' must match " + PREFIX.pattern());
        }
        if (defaultHttpPort < -1 || defaultHttpPort > 65_535) {
            throw new IllegalArgumentException("default HTTP port " + defaultHttpPort + " is not -1..65535");
        }
        mappers = List.copyOf(mappers);
        retention = List.copyOf(retention);
        for (RetainedTable<?> target : retention) {
            if (!mappers.contains(target.mapper())) {
                throw new IllegalArgumentException("retention of " + target.table() + " uses "
                        + target.mapper().getName() + ", which is not among the consumer's mappers");
            }
        }
    }

    /** The Flyway history table of the consumer's own migrations. */
    public String migrationHistoryTable() {
        return "flyway_" + name + "_history";
    }

    /**
     * Starts a registration; the settings prefix defaults to the name in upper case, the HTTP
     * port to -1 (no {@code /metrics} and {@code /health} unless {@code OUTBOX_<PREFIX>_HTTP_PORT}
     * says so).
     */
    public static Builder builder(String name, String queue, Class<? extends MessageHandler> handler) {
        return new Builder(name, queue, handler);
    }

    /** Builds a {@link ConsumerRegistration}; every part but name, queue and handler is optional. */
    public static final class Builder {
        private final String name;
        private final String queue;
        private final Class<? extends MessageHandler> handler;
        private String settingsPrefix;
        private final List<Class<?>> mappers = new ArrayList<>();
        private int httpPort = -1;
        private String migrations;
        private final List<RetainedTable<?>> retention = new ArrayList<>();
        private Ordering ordering = Ordering.AGGREGATE_ORDER;

        private Builder(String name, String queue, Class<? extends MessageHandler> handler) {
            this.name = Objects.requireNonNull(name, "name");
            this.queue = queue;
            this.handler = handler;
            this.settingsPrefix = name.toUpperCase(Locale.ROOT);
        }

        /** {@code OUTBOX_<prefix>_*} are the consumer's settings. */
        public Builder settingsPrefix(String prefix) {
            this.settingsPrefix = prefix;
            return this;
        }

        /** The MyBatis mappers the handler injects; they join the dedupe record's transaction. */
        public Builder mappers(Class<?>... mapperClasses) {
            mappers.addAll(List.of(mapperClasses));
            return this;
        }

        /** The default of {@code OUTBOX_<PREFIX>_HTTP_PORT} ({@code /metrics}, {@code /health}). */
        public Builder httpPort(int port) {
            this.httpPort = port;
            return this;
        }

        /** A Flyway location of the consumer's own migrations, e.g. {@code classpath:db/shipments}. */
        public Builder migrations(String location) {
            this.migrations = Objects.requireNonNull(location, "location");
            return this;
        }

        /** A table of the consumer's own that retention keeps short (its mapper must be among {@link #mappers}). */
        public Builder retain(RetainedTable<?> table) {
            retention.add(Objects.requireNonNull(table, "table"));
            return this;
        }

        /**
         * Applies messages as delivered ({@link Ordering#AS_DELIVERED}), not in aggregate order:
         * for a queue that binds only some of an aggregate's message types.
         */
        public Builder asDelivered() {
            this.ordering = Ordering.AS_DELIVERED;
            return this;
        }

        public ConsumerRegistration build() {
            return new ConsumerRegistration(
                    name,
                    queue,
                    settingsPrefix,
                    handler,
                    mappers,
                    httpPort,
                    Optional.ofNullable(migrations),
                    retention,
                    ordering);
        }
    }
}
