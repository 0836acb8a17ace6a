package dev.outbox.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One setting, declared once: the variable's name, what it accepts, its default and what it does.
 * A configuration class declares its settings as {@code static final} fields and reads them with
 * {@link Settings#get(Setting)}; nothing else reads the environment. The README's configuration
 * table is rendered from these declarations, and a test fails when the README and the
 * declarations differ ({@code SettingsDeclaredOnceTest} in {@code ops/launcher}).
 *
 * <p>A setting whose default is computed from other settings (a socket timeout that follows the
 * statement timeout) declares how its default is shown with {@link #defaultShownAs} and is read
 * with {@link Settings#get(Setting, Object)}. A per-consumer setting names {@link #CONSUMER} in
 * its variable and is read through {@link #forConsumer}.
 *
 * @param <T> what a read gives
 */
public final class Setting<T> {
    /** Stands for a consumer's settings prefix ({@code LEDGER}) in a per-consumer variable. */
    public static final String CONSUMER = "<CONSUMER>";

    /**
     * Our own variables, and the few of OpenTelemetry's standard ones the processes decide on
     * ({@code TracingConfig}): the SDK reads the rest of its {@code OTEL_*} variables itself.
     */
    private static final Pattern NAME = Pattern.compile("OUTBOX_(<CONSUMER>_)?[A-Z][A-Z0-9_]*|OTEL_[A-Z][A-Z0-9_]*");

    @FunctionalInterface
    interface Reader<T> {
        T read(Settings settings, String name, T defaultValue);
    }

    private final String name;
    private final String accepts;
    private final T defaultValue;
    private final String shownDefault;
    private final String doc;
    private final Reader<T> reader;

    private Setting(String name, String accepts, T defaultValue, String shownDefault, String doc, Reader<T> reader) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "a setting's variable is OUTBOX_ (or OTEL_) and upper-case words: " + name);
        }
        if (doc.isBlank() || doc.contains("|") || doc.contains("\n")) {
            throw new IllegalArgumentException(name + ": a setting's documentation is one line without '|'");
        }
        this.name = name;
        this.accepts = accepts;
        this.defaultValue = defaultValue;
        this.shownDefault = Objects.requireNonNull(shownDefault, "shownDefault");
        this.doc = doc;
        this.reader = reader;
    }

    public static Setting<Integer> integer(String name, int defaultValue, int min, int max, String doc) {
        return new Setting<>(
                name,
                "integer " + min + " to " + max,
                defaultValue,
                "`" + defaultValue + "`",
                doc,
                (s, n, d) -> s.integer(n, d, min, max));
    }

    /** A size in bytes: {@code 1048576}, {@code 512KiB}, {@code 1MiB}. */
    public static Setting<Long> bytes(String name, long defaultValue, long min, long max, String doc) {
        return new Setting<>(
                name,
                "size " + Settings.formatBytes(min) + " to " + Settings.formatBytes(max),
                defaultValue,
                "`" + Settings.formatBytes(defaultValue) + "`",
                doc,
                (s, n, d) -> s.bytes(n, d, min, max));
    }

    /** {@code 250ms}, {@code 10s}, {@code 5m}, {@code 2h} or ISO-8601. */
    public static Setting<Duration> duration(
            String name, Duration defaultValue, Duration min, Duration max, String doc) {
        return new Setting<>(
                name,
                "duration " + Settings.format(min) + " to " + Settings.format(max),
                defaultValue,
                defaultValue == null ? "" : "`" + Settings.format(defaultValue) + "`",
                doc,
                (s, n, d) -> s.duration(n, d, min, max));
    }

    public static Setting<Boolean> flag(String name, boolean defaultValue, String doc) {
        return new Setting<>(name, "`true` or `false`", defaultValue, "`" + defaultValue + "`", doc, Settings::bool);
    }

    public static Setting<String> text(String name, String defaultValue, String doc) {
        return new Setting<>(
                name,
                "text",
                defaultValue,
                defaultValue == null ? "" : "`" + defaultValue + "`",
                doc,
                Settings::string);
    }

    /** Text that must match {@code regex}; {@code mustBe} says so in words for the error and the README. */
    public static Setting<String> matching(String name, String defaultValue, String regex, String mustBe, String doc) {
        Pattern pattern = Pattern.compile(regex);
        return new Setting<>(name, mustBe, defaultValue, "`" + defaultValue + "`", doc, (s, n, d) -> {
            String v = s.string(n, d);
            if (!pattern.matcher(v).matches()) {
                throw new ConfigurationException(n + "=" + v + ": must be " + mustBe);
            }
            return v;
        });
    }

    /** One of a few words. */
    public static Setting<String> oneOf(String name, String defaultValue, List<String> choices, String doc) {
        if (!choices.contains(defaultValue)) {
            throw new IllegalArgumentException(name + ": the default is not one of the choices");
        }
        String words =
                String.join(" or ", choices.stream().map(c -> "`" + c + "`").toList());
        return new Setting<>(name, words, defaultValue, "`" + defaultValue + "`", doc, (s, n, d) -> {
            String v = s.string(n, d);
            if (!choices.contains(v)) {
                throw new ConfigurationException(
                        n + "=" + v + ": must be " + String.join(" or ", choices) + " (not '" + v + "')");
            }
            return v;
        });
    }

    /** A value with no default: empty when unset; {@code whenUnset} says what that means. */
    public static Setting<Optional<String>> optional(String name, String accepts, String whenUnset, String doc) {
        return new Setting<>(name, accepts, Optional.empty(), "unset: " + whenUnset, doc, (s, n, d) -> s.optional(n));
    }

    /** A comma-separated list of durations: {@code 0s,10s,1m}. */
    public static Setting<List<Duration>> durations(String name, List<Duration> defaultValue, String doc) {
        List<String> shown = new ArrayList<>();
        defaultValue.forEach(d -> shown.add(Settings.format(d)));
        return new Setting<>(
                name,
                "durations, comma-separated",
                List.copyOf(defaultValue),
                "`" + String.join(",", shown) + "`",
                doc,
                Settings::durations);
    }

    /** A comma-separated list of words, empty when unset. */
    public static Setting<Set<String>> words(String name, String doc) {
        return new Setting<>(name, "words, comma-separated", Set.of(), "(none)", doc, (s, n, d) -> s.list(n));
    }

    /**
     * For a default computed from other settings: how the README shows it. Read such a setting
     * with {@link Settings#get(Setting, Object)}.
     */
    public Setting<T> defaultShownAs(String text) {
        return new Setting<>(name, accepts, null, text, doc, reader);
    }

    /** The same setting for one consumer: {@code OUTBOX_<CONSUMER>_PREFETCH} becomes {@code OUTBOX_LEDGER_PREFETCH}. */
    public Setting<T> forConsumer(String prefix) {
        if (!perConsumer()) {
            throw new IllegalStateException(name + " is not a per-consumer setting");
        }
        return new Setting<>(name.replace(CONSUMER, prefix), accepts, defaultValue, shownDefault, doc, reader);
    }

    public boolean perConsumer() {
        return name.contains(CONSUMER);
    }

    public String name() {
        return name;
    }

    /** What the variable accepts, in words. */
    public String accepts() {
        return accepts;
    }

    /** The default as the README shows it. */
    public String shownDefault() {
        return shownDefault;
    }

    public String doc() {
        return doc;
    }

    T read(Settings settings, T computedDefault) {
        if (perConsumer()) {
            throw new IllegalStateException(name + " is per consumer: read it through forConsumer(prefix)");
        }
        return reader.read(settings, name, computedDefault);
    }

    T defaultValue() {
        if (defaultValue == null) {
            throw new IllegalStateException(name + " has a computed default: read it with get(setting, default)");
        }
        return defaultValue;
    }

    @Override
    public String toString() {
        return name;
    }
}
