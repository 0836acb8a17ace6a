package dev.outbox.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed access to {@code OUTBOX_*} environment variables, read through their declarations
 * ({@link Setting}). Every read names its default; a
 * malformed value stops start-up with a message that names the variable, rather than falling
 * back silently. {@link #describe()} lists what was read, with secrets masked, for the start-up
 * log.
 */
public final class Settings {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");
    private static final Pattern BYTES = Pattern.compile("(\\d{1,19})\\s*((?i)k|kb|kib|m|mb|mib|g|gb|gib)?");

    private final Map<String, String> env;
    private final Map<String, Used> used = new TreeMap<>();

    public Settings(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    public static Settings fromEnvironment() {
        return new Settings(System.getenv());
    }

    /** The setting's value, or its declared default; a malformed value stops start-up, naming it. */
    public <T> T get(Setting<T> setting) {
        return setting.read(this, setting.defaultValue());
    }

    /** For a setting whose default is computed from others ({@link Setting#defaultShownAs}). */
    public <T> T get(Setting<T> setting, T computedDefault) {
        return setting.read(this, computedDefault);
    }

    /** A copy with some variables replaced: used by launchers that compose several components. */
    public Settings with(Map<String, String> overrides) {
        Map<String, String> merged = new java.util.HashMap<>(env);
        merged.putAll(overrides);
        return new Settings(merged);
    }

    Optional<String> optional(String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return Optional.empty();
        }
        String value = v.strip();
        // no setting takes a control character, and one hidden in a value (a NUL from a templating
        // tool, a stray CR from a Windows-edited env file) would otherwise be read as part of it
        int control =
                value.codePoints().filter(Character::isISOControl).findFirst().orElse(-1);
        if (control >= 0) {
            throw new ConfigurationException(
                    name + " contains the control character " + String.format("U+%04X", control) + ": remove it");
        }
        record(name, value);
        return Optional.of(value);
    }

    String string(String name, String defaultValue) {
        return optional(name).orElseGet(() -> {
            recordDefault(name, defaultValue);
            return defaultValue;
        });
    }

    int integer(String name, int defaultValue, int min, int max) {
        Optional<String> raw = optional(name);
        if (raw.isEmpty()) {
            recordDefault(name, defaultValue);
            return defaultValue;
        }
        try {
            int v = Integer.parseInt(raw.get());
            if (v < min || v > max) {
                throw new ConfigurationException(name + "=" + raw.get() + ": must be between " + min + " and " + max);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new ConfigurationException(
                    name + "=" + raw.get() + ": must be an integer between " + min + " and " + max);
        }
    }

    boolean bool(String name, boolean defaultValue) {
        Optional<String> raw = optional(name);
        if (raw.isEmpty()) {
            recordDefault(name, defaultValue);
            return defaultValue;
        }
        return switch (raw.get().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "yes", "1", "on" -> true;
            case "false", "no", "0", "off" -> false;
            default -> throw new ConfigurationException(name + "=" + raw.get() + ": must be true or false");
        };
    }

    /** Durations are written {@code 250ms}, {@code 10s}, {@code 5m}, {@code 2h}, or ISO-8601 ({@code PT10S}). */
    Duration duration(String name, Duration defaultValue, Duration min, Duration max) {
        Optional<String> raw = optional(name);
        if (raw.isEmpty()) {
            recordDefault(name, format(defaultValue));
            return defaultValue;
        }
        Duration d = parseDuration(name, raw.get());
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new ConfigurationException(
                    name + "=" + raw.get() + ": must be between " + format(min) + " and " + format(max));
        }
        return d;
    }

    /**
     * A size in bytes, written {@code 1048576}, {@code 512KiB} or {@code 1MiB} ({@code KB}/{@code MB}
     * are read as the same binary units, the way most people mean them for a request size).
     */
    long bytes(String name, long defaultValue, long min, long max) {
        Optional<String> raw = optional(name);
        if (raw.isEmpty()) {
            recordDefault(name, formatBytes(defaultValue));
            return defaultValue;
        }
        Matcher m = BYTES.matcher(raw.get());
        String range = " between " + formatBytes(min) + " and " + formatBytes(max);
        if (!m.matches()) {
            throw new ConfigurationException(
                    name + "=" + raw.get() + ": must be a size such as 1048576, 512KiB or 1MiB," + range);
        }
        long unit = switch (m.group(2) == null ? "" : m.group(2).toUpperCase(java.util.Locale.ROOT)) {
            case "K", "KB", "KIB" -> 1024L;
            case "M", "MB", "MIB" -> 1024L * 1024;
            case "G", "GB", "GIB" -> 1024L * 1024 * 1024;
            default -> 1L;
        };
        long v;
        try {
            v = Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new ConfigurationException(name + "=" + raw.get() + ": must be" + range);
        }
        if (v < min || v > max) {
            throw new ConfigurationException(name + "=" + raw.get() + ": must be" + range);
        }
        return v;
    }

    /** {@code 1MiB}, {@code 512KiB} or a plain number of bytes, whichever is exact. */
    public static String formatBytes(long n) {
        if (n != 0 && n % (1024L * 1024) == 0) {
            return n / (1024L * 1024) + "MiB";
        }
        if (n != 0 && n % 1024 == 0) {
            return n / 1024 + "KiB";
        }
        return Long.toString(n);
    }

    /**
     * Every set variable whose name starts with {@code prefix}, values as given (stripped), for a
     * library that reads a family of variables of its own (the OpenTelemetry SDK's {@code OTEL_*}):
     * its configuration class declares the few the process decides on and hands over the rest.
     */
    Map<String, String> variablesStartingWith(String prefix) {
        Map<String, String> out = new TreeMap<>();
        env.keySet().stream()
                .filter(name -> name.startsWith(prefix))
                .forEach(name -> optional(name).ifPresent(value -> out.put(name, value)));
        return out;
    }

    /** A comma-separated list of words (empty when unset). */
    java.util.Set<String> list(String name) {
        Optional<String> raw = optional(name);
        if (raw.isEmpty()) {
            recordDefault(name, "(none)");
            return java.util.Set.of();
        }
        java.util.Set<String> out = new java.util.LinkedHashSet<>();
        for (String part : raw.get().split(",")) {
            if (!part.isBlank()) {
                out.add(part.trim());
            }
        }
        return java.util.Collections.unmodifiableSet(out);
    }

    /** A comma-separated list of durations, e.g. {@code 0s,10s,1m,5m,15m}. */
    List<Duration> durations(String name, List<Duration> defaultValue) {
        Optional<String> raw = optional(name);
        if (raw.isEmpty()) {
            List<String> shown = new ArrayList<>();
            defaultValue.forEach(d -> shown.add(format(d)));
            recordDefault(name, String.join(",", shown));
            return defaultValue;
        }
        List<Duration> out = new ArrayList<>();
        for (String part : raw.get().split(",")) {
            out.add(parseDuration(name, part.trim()));
        }
        if (out.isEmpty()) {
            throw new ConfigurationException(name + " must list at least one duration");
        }
        return List.copyOf(out);
    }

    public static Duration parseDuration(String name, String text) {
        Matcher m = DURATION.matcher(text);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        try {
            Duration d = Duration.parse(text);
            if (d.isNegative()) {
                throw new ConfigurationException(name + "=" + text + ": must not be negative");
            }
            return d;
        } catch (java.time.format.DateTimeParseException e) {
            throw new ConfigurationException(name + "=" + text + ": must be a duration such as 250ms, 10s, 5m or 2h");
        }
    }

    public static String format(Duration d) {
        if (d.toMillis() % 3_600_000 == 0 && !d.isZero()) {
            return d.toHours() + "h";
        }
        if (d.toMillis() % 60_000 == 0 && !d.isZero()) {
            return d.toMinutes() + "m";
        }
        if (d.toMillis() % 1_000 == 0) {
            return d.toSeconds() + "s";
        }
        return d.toMillis() + "ms";
    }

    /**
     * What was read, as an aligned table for the start-up log: the values that were set first,
     * then the defaults, each group sorted by name, secrets masked. One line per setting, so no
     * log line grows with the number of settings.
     */
    public String describe() {
        int width = used.keySet().stream().mapToInt(String::length).max().orElse(0);
        long set = used.values().stream().filter(u -> !u.isDefault()).count();
        StringBuilder sb = new StringBuilder();
        sb.append("settings: ")
                .append(set)
                .append(" set, ")
                .append(used.size() - set)
                .append(" default");
        for (boolean defaults : new boolean[] {false, true}) {
            used.forEach((name, u) -> {
                if (u.isDefault() == defaults) {
                    sb.append(System.lineSeparator())
                            .append("  ")
                            .append(name)
                            .append(" ".repeat(width - name.length() + 2))
                            .append(u.value())
                            .append(defaults ? "  (default)" : "");
                }
            });
        }
        return sb.toString();
    }

    private record Used(String value, boolean isDefault) {}

    private void record(String name, String value) {
        used.put(name, new Used(isSecret(name) ? "***" : maskUri(value), false));
    }

    private void recordDefault(String name, Object value) {
        used.putIfAbsent(name, new Used(isSecret(name) ? "***" : maskUri(String.valueOf(value)), true));
    }

    static boolean isSecret(String name) {
        // OTEL_EXPORTER_OTLP_HEADERS carries a collector's API key
        return name.contains("PASSWORD")
                || name.contains("TOKEN")
                || name.contains("SECRET")
                || name.contains("HEADERS");
    }

    /** Hides the password part of {@code scheme://user:password@host}. */
    public static String maskUri(String value) {
        return value.replaceAll("(://[^:/@]+):[^@/]*@", "$1:***@");
    }
}
