package dev.outbox.testkit.arch;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The rule for code that adopts the outbox (a service, a consumer): of ours, it uses the front
 * door's packages ({@code dev.outbox}, {@code dev.outbox.consumer}, module {@code outbox-front-door})
 * and its own, nothing else; libraries are its own business. The builds of such modules put only
 * the front door on their compile classpath; this rule keeps it so should a dependency change.
 */
public final class FrontDoorOnly {
    /** The front door's packages, exactly (not their sub-packages: {@code dev.outbox.consumer.runtime} is not one). */
    public static final String[] FRONT_DOOR = {"dev.outbox", "dev.outbox.consumer"};

    private FrontDoorOnly() {}

    /** Checks the main classes of {@code ownPackage} and its sub-packages; fails naming each dependency that breaks the rule. */
    public static void check(String ownPackage) {
        var imported = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ownPackage);
        if (imported.isEmpty()) {
            throw new AssertionError("no classes found in " + ownPackage + ": the rule would check nothing");
        }
        classes()
                .should()
                .onlyDependOnClassesThat(resideInAnyPackage(ownPackage + "..")
                        .or(resideInAnyPackage(FRONT_DOOR))
                        .or(resideOutsideOfPackage("dev.outbox..")))
                .because("code that adopts the outbox uses its front door, not its implementation")
                .check(imported);
    }
}
