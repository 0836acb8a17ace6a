package dev.outbox.example.invoicing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The example adopts the outbox through the front door only ({@code dev.outbox}, module
 * {@code outbox-front-door}), never its implementation: the build gives it nothing else of ours to
 * compile against, and this rule keeps it so should a dependency change.
 */
class InvoicingArchitectureTest {
    @Test
    void theServiceUsesOnlyThePublicApiOfTheOutbox() {
        JavaClasses service = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.outbox.example.invoicing");
        classes()
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "dev.outbox.example.invoicing..",
                        "dev.outbox..",
                        "dev.outbox.domain.event..",
                        "java..",
                        "javax.sql..",
                        "jakarta.inject..",
                        "com.google.inject..",
                        "org.mybatis.guice..",
                        "org.apache.ibatis.annotations..",
                        "org.apache.ibatis.session..",
                        "org.flywaydb.core..")
                .because("a service adopts the outbox through dev.outbox, not its implementation")
                .check(service);
    }
}
