package dev.outbox.deploy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.outbox.config.Setting;
import dev.outbox.config.SettingsTable;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Every {@link Setting} the processes on this classpath declare, by variable name, found where
 * SettingsDeclaredOnceTest finds them: the static fields of the product's classes.
 */
final class Declarations {
    private static final Map<String, Setting<?>> BY_NAME = scan();

    private Declarations() {}

    /** The declaration read for {@code variable}: its own, or a per-consumer one's for that consumer's prefix. */
    static Optional<Setting<?>> of(String variable) {
        Setting<?> direct = BY_NAME.get(variable);
        if (direct != null) {
            return Optional.of(direct);
        }
        for (Setting<?> s : BY_NAME.values()) {
            if (s.perConsumer()) {
                String[] around = s.name().split(java.util.regex.Pattern.quote(Setting.CONSUMER));
                if (variable.startsWith(around[0]) && variable.endsWith(around[1])) {
                    String prefix = variable.substring(around[0].length(), variable.length() - around[1].length());
                    if (prefix.matches("[A-Z][A-Z0-9_]*")) {
                        return Optional.of(s.forConsumer(prefix));
                    }
                }
            }
        }
        return Optional.empty();
    }

    @SuppressWarnings("unchecked")
    static <T> Setting<T> named(String variable) {
        return (Setting<T>) of(variable).orElseThrow(() -> new AssertionError(variable + " is declared nowhere"));
    }

    private static Map<String, Setting<?>> scan() {
        Map<String, Setting<?>> out = new TreeMap<>();
        for (JavaClass c : new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.outbox")) {
            if (c.getFields().stream().anyMatch(f -> f.getRawType().isEquivalentTo(Setting.class))) {
                for (Setting<?> s : SettingsTable.declaredIn(c.reflect())) {
                    out.put(s.name(), s);
                }
            }
        }
        if (out.size() < 60) {
            throw new IllegalStateException("found only " + out.size() + " settings: is the scan blind?");
        }
        return out;
    }
}
