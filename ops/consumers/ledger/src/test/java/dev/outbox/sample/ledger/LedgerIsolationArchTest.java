package dev.outbox.sample.ledger;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.outbox.testkit.arch.FrontDoorOnly;
import org.junit.jupiter.api.Test;

/**
 * The ledger is a sample consumer like any other: it uses the front door alone, and the shared
 * modules, the consumer runtime among them, know nothing of it. It brings its handler, mapper,
 * registration, queue file and services entry.
 */
class LedgerIsolationArchTest {
    @Test
    void theLedgerUsesOnlyTheFrontDoor() {
        FrontDoorOnly.check("dev.outbox.sample.ledger");
    }

    @Test
    void nothingSharedNamesTheLedger() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.outbox");
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.outbox.sample.ledger..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.outbox.sample.ledger..")
                .because("a consumer is its own folder; the shared wiring is not edited for it")
                .check(classes);
    }
}
