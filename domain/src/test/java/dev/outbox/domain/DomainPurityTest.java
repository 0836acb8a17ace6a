package dev.outbox.domain;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The domain imports nothing but the JDK: no JSON library, no persistence, no broker, no DI. */
class DomainPurityTest {
    @Test
    void domainDependsOnTheJdkOnly() {
        JavaClasses domain = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.outbox.domain");
        classes()
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("dev.outbox.domain..", "dev.outbox", "java..")
                .because("the domain is pure Java (CONVENTIONS: domain imports no framework)")
                .check(domain);
    }
}
