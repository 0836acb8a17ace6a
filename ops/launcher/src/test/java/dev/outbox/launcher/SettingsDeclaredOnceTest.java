package dev.outbox.launcher;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.outbox.config.Setting;
import dev.outbox.config.Settings;
import dev.outbox.config.SettingsTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every setting is declared once ({@link Setting}: name, type, default, range, documentation),
 * only configuration classes read them, and the deployment guide's configuration table is the declarations
 * rendered. After changing a declaration, rewrite the table with {@code mvn -pl ops/launcher test
 * -Dtest=SettingsDeclaredOnceTest -Doutbox.settings.write=true}.
 */
class SettingsDeclaredOnceTest {
    /** The configuration classes, in the table's order. */
    private static final List<String> CONFIGURATION = List.of(
            "dev.outbox.persistence.DatabaseConfig",
            "dev.outbox.messaging.BrokerConfig",
            "dev.outbox.api.ApiConfig",
            "dev.outbox.api.ops.OpsConfig",
            "dev.outbox.relay.RelayConfig",
            "dev.outbox.persistence.LeaseConfig",
            "dev.outbox.relay.LivenessConfig",
            "dev.outbox.relay.CdcConfig",
            "dev.outbox.persistence.retention.RetentionPolicy",
            "dev.outbox.consumer.runtime.ConsumerSettings",
            "dev.outbox.launcher.ZeroInfraConfig",
            "dev.outbox.config.LoggingConfig",
            "dev.outbox.config.TracingConfig");

    /** The deployment guide, which holds the configuration table. */
    static final String GUIDE = "ops/deploy/README.md";

    private static final String BEGIN = "<!-- settings:begin";
    private static final String END = "<!-- settings:end -->";

    /** Operator tools and test harnesses with variables of their own, documented where they are used. */
    private static final List<String> TOOLS =
            List.of("dev.outbox.bench", "dev.outbox.chaos", "dev.outbox.testkit", "dev.outbox.ctl");

    private static final JavaClasses PRODUCT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.outbox");

    @Test
    void theConfigurationTableIsTheDeclarationsRendered() throws Exception {
        Path readme = RepoFiles.root().resolve(GUIDE);
        String text = Files.readString(readme);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        assertTrue(begin >= 0 && end > begin, GUIDE + " has no " + BEGIN + " ... " + END + " section");
        int tableStart = text.indexOf('\n', begin) + 1;
        String expected = SettingsTable.markdown(classes());
        if (Boolean.getBoolean("outbox.settings.write")) {
            Files.writeString(readme, text.substring(0, tableStart) + expected + text.substring(end));
            return;
        }
        assertEquals(
                expected,
                text.substring(tableStart, end),
                GUIDE + "'s configuration table differs from the Setting declarations; rewrite it with"
                        + " mvn -pl ops/launcher test -Dtest=SettingsDeclaredOnceTest -Doutbox.settings.write=true");
    }

    @Test
    void everyClassThatDeclaresSettingsIsInTheTable() {
        Set<String> declaring = new TreeSet<>();
        for (JavaClass c : PRODUCT) {
            if (c.getFields().stream().anyMatch(f -> f.getRawType().isEquivalentTo(Setting.class))) {
                declaring.add(c.getName());
            }
        }
        assertEquals(new TreeSet<>(CONFIGURATION), declaring, "classes declaring settings vs the table's list");
    }

    @Test
    void noVariableIsDeclaredTwice() throws Exception {
        Set<String> seen = new HashSet<>();
        for (Class<?> c : classes()) {
            for (Setting<?> s : SettingsTable.declaredIn(c)) {
                assertTrue(seen.add(s.name()), s.name() + " is declared twice (again in " + c.getName() + ")");
            }
        }
        assertTrue(seen.size() >= 60, "found only " + seen.size() + " settings: is the scan blind?");
    }

    @Test
    void onlySettingsReadsTheEnvironment() {
        noClasses()
                .that(outsideTools())
                .and()
                .doNotHaveFullyQualifiedName(Settings.class.getName())
                .should()
                .callMethod(System.class, "getenv")
                .orShould()
                .callMethod(System.class, "getenv", String.class)
                .because("settings are read through their declarations (Setting), not from the environment directly")
                .check(PRODUCT);
    }

    @Test
    void onlyConfigurationClassesReadSettings() {
        noClasses()
                .that(outsideTools())
                .and(notConfiguration())
                .should()
                .callMethod(Settings.class, "get", Setting.class)
                .orShould()
                .callMethod(Settings.class, "get", Setting.class, Object.class)
                .because("a process asks its configuration classes (ApiConfig, RelayConfig, ...), which"
                        + " declare what they read")
                .check(PRODUCT);
    }

    /**
     * The prose names only variables that exist: each {@code OUTBOX_*} word in a document (every
     * tracked Markdown file) is
     * declared, is a consumer's instance of a per-consumer setting, or belongs to a tool.
     */
    @Test
    void theDocumentsNameOnlyDeclaredVariables() throws Exception {
        Set<String> declared = new HashSet<>();
        List<Pattern> perConsumer = new ArrayList<>();
        for (Class<?> c : classes()) {
            for (Setting<?> s : SettingsTable.declaredIn(c)) {
                declared.add(s.name());
                if (s.perConsumer()) {
                    perConsumer.add(Pattern.compile(
                            Pattern.quote(s.name()).replace(Setting.CONSUMER, "\\E[A-Z][A-Z0-9_]*\\Q")));
                }
            }
        }
        StringBuilder all = new StringBuilder();
        for (String f : RepoFiles.files()) {
            if (f.endsWith(".md")) {
                all.append(Files.readString(RepoFiles.root().resolve(f))).append('\n');
            }
        }
        String text = all.toString();
        // a name followed by _* or _<NAME> stands for a family: known when a declared name starts with it
        Matcher m = Pattern.compile("OUTBOX_(?:<CONSUMER>_|<PREFIX>_)?[A-Z0-9_]*[A-Z0-9](_\\*|_<)?")
                .matcher(text);
        Set<String> unknown = new TreeSet<>();
        while (m.find()) {
            String name = m.group().replace("<PREFIX>", Setting.CONSUMER);
            boolean family = m.group(1) != null;
            String bare = family ? name.substring(0, name.length() - m.group(1).length()) : name;
            boolean known = family
                    ? declared.stream().anyMatch(d -> d.startsWith(bare + "_"))
                    : declared.contains(bare)
                            || perConsumer.stream()
                                    .anyMatch(p -> p.matcher(bare).matches());
            if (!known && !bare.matches("OUTBOX_(TEST|BENCH|CHAOS|REQUIRE|CLUSTER)(_[A-Z0-9_]+)?|OUTBOX_URL")) {
                unknown.add(m.group());
            }
        }
        assertEquals(Set.of(), unknown, "the documents name variables no configuration class declares");
    }

    private static List<Class<?>> classes() throws ClassNotFoundException {
        List<Class<?>> out = new ArrayList<>();
        for (String name : CONFIGURATION) {
            out.add(Class.forName(name));
        }
        return out;
    }

    private static DescribedPredicate<JavaClass> outsideTools() {
        return DescribedPredicate.describe(
                "are product classes",
                c -> TOOLS.stream().noneMatch(t -> c.getPackageName().startsWith(t)));
    }

    private static DescribedPredicate<JavaClass> notConfiguration() {
        return DescribedPredicate.describe(
                "are not configuration classes",
                c -> !c.getSimpleName().endsWith("Config")
                        && !CONFIGURATION.contains(c.getName())
                        && !c.getPackageName().equals("dev.outbox.config"));
    }
}
