package dev.outbox.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * The settings a configuration class declares, and the README's table of them. A declaration is a
 * {@code static final} field of type {@link Setting}; the table lists them in the order of the
 * classes given, each class's in the order of its fields.
 */
public final class SettingsTable {
    private SettingsTable() {}

    /** The settings {@code type} declares, in the order of its fields. */
    public static List<Setting<?>> declaredIn(Class<?> type) {
        List<Setting<?>> out = new ArrayList<>();
        for (Field f : type.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && Setting.class.equals(f.getType())) {
                if (!Modifier.isFinal(f.getModifiers())) {
                    throw new IllegalStateException(type.getName() + "." + f.getName() + ": a setting is final");
                }
                try {
                    f.setAccessible(true);
                    out.add((Setting<?>) f.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read " + type.getName() + "." + f.getName(), e);
                }
            }
        }
        return out;
    }

    /** One Markdown table of every setting the classes declare. */
    public static String markdown(List<Class<?>> types) {
        StringBuilder sb = new StringBuilder();
        sb.append("| Variable | Default | Accepts | What it does |\n");
        sb.append("|---|---|---|---|\n");
        for (Class<?> type : types) {
            for (Setting<?> s : declaredIn(type)) {
                sb.append("| `")
                        .append(s.name())
                        .append("` | ")
                        .append(s.shownDefault())
                        .append(" | ")
                        .append(s.accepts())
                        .append(" | ")
                        .append(s.doc())
                        .append(" |\n");
            }
        }
        return sb.toString();
    }
}
