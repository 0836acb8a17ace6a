package dev.outbox.ledger;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The ledger is a sample consumer like any other: the shared modules, and the consumer process
 * around it, know nothing of it. It brings its handler, mapper, registration and queue file.
 */
class LedgerIsolationArchTest {
    @Test
    void nothingSharedNamesTheLedger() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.outbox");
        noClasses()
                .that()
                .resideInAnyPackage(
                        "dev.outbox.persistence..",
                        "dev.outbox.messaging..",
                        "dev.outbox.kernel..",
                        "dev.outbox.consumer..",
                        "dev.outbox.relay..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.outbox.ledger..")
                .because("a consumer is its handler plus its registration; the shared wiring is not edited for it")
                .check(classes);
    }
}
